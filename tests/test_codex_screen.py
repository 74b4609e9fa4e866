"""Codex on the table's screen: every step in both languages, the privacy of pass-and-play, a
whole game played by taps, and the pygame backend drawing it. The documentation's pictures of it
are drawn by tools/screenshots.py (tests/test_screenshots.py)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"  # headless: before pygame is imported
os.environ["PYGAME_HIDE_SUPPORT_PROMPT"] = "1"

import itertools
import json
import queue
import random
import re

import pygame
import pytest

from pi_table.drivers.pygame_screen import PygameScreen
from pi_table.drivers.touchboard import DISCONNECTED
from pi_table.engine import InvalidAction, RuleError
from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import (
    Block,
    Done,
    EndDiscussion,
    EnterCode,
    Profile,
    Reveal,
    Send,
    Vote,
    parse_codex_action,
)
from pi_table.engine.codex_rules import CodexRules
from pi_table.engine.codex_setup import SEATS, Fact
from pi_table.engine.phrase import Phrase
from pi_table.hal import Cues, NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch, TimerState, UiEvent
from pi_table.hal.codex_model import CodexModel
from pi_table.table import Session
from pi_table.table.codex_loop import CodexLoop
from pi_table.ui import codex_screen as cs
from pi_table.ui import i18n
from pi_table.ui.codex_screen import draw_codex
from pi_table.ui.codex_turns import Stage, Turn, next_call, public_refusal
from pi_table.ui.screens import ScreenPainter

from helpers import record_untranslated

SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
# The same six seats with every secret but seat 3's moved round the others: its own view, and
# the public one while nothing is revealed, cannot tell the two apart.
SHUFFLED = (
    "Moon:blue:hacker:2:EEEE Aleman:blue:inquisitore:3:FFFF Viper:red:leader:1:AAAA "
    "Falco:blue:leader:1:DDDD Nebbia:red:hacker:2:BBBB Orso:red:inquisitore:3:CCCC"
)
OTHERS = (  # an Infiltrato, an Informatore and a Profiler in play
    "Jade:red:leader:1:J4DE Onyx:blue:infiltrato:2:0NYX Echo:red:profiler:3:ECH0 "
    "Nova:blue:leader:1:N0VA Ghost:red:infiltrato:2:GH0S Raven:blue:profiler:3:RAVN"
)
INFORMANTS = (
    "Jade:red:leader:1:J4DE Onyx:red:informatore:2:0NYX Echo:red:profiler:3:ECH0 "
    "Nova:blue:leader:1:N0VA Ghost:blue:informatore:2:GH0S Raven:blue:profiler:3:RAVN"
)
SEND_ALL = tuple(f"send {seat} {(seat + 1) % 6} position" for seat in range(6))
DONE_ALL = tuple(f"done {seat}" for seat in range(6))
VOTES = tuple(f"vote {seat} {0 if seat == 1 else 1}" for seat in range(6))  # all for seat 1, seat 1 for seat 0
TO_TRUTH = SEND_ALL + DONE_ALL + ("end-discussion",) + VOTES
PHASE_2 = TO_TRUTH + ("reveal 1 role",)
MOON_SEES_RED = ("send 0 1 position", "send 1 0 position", "send 2 0 position", "send 3 4 position",
                 "send 4 5 position", "send 5 3 position")  # Moon gets Aleman's and Viper's fragments
LANGS = ("en", "it")
TIMER = TimerState(length_s=180, remaining_s=95.2, warn_s=10, enforced=True, running=True)
MOON = Phrase.of("{codename} (seat {seat})", codename="Moon", seat=0)
game = Codex()


def state(actions=(), setup=SETUP):
    s = game.start(game.parse_setup(setup))
    for text in actions:
        s = game.apply(s, parse_codex_action(text))
    return s


def agent(seat, actions, choice=(), setup=SETUP):
    """The stage where ``seat`` is at the screen, with ``choice`` tapped."""
    s = state(actions, setup)
    return Turn(Stage.AGENT, seat, (s.phase, s.step), choice)


SCENES = {
    # the public side, step by step
    "messages": (SETUP, ("send 2 3 role", "send 4 0 position"), Turn(), {}),
    "private": (SETUP, SEND_ALL + ("done 5",), Turn(), {}),
    "discussion": (SETUP, SEND_ALL + DONE_ALL, Turn(), {"cues": Cues(timer=TIMER)}),
    "vote": (SETUP, SEND_ALL + DONE_ALL + ("end-discussion", "vote 2 1"), Turn(), {}),
    "truth": (SETUP, TO_TRUTH, Turn(), {}),
    "revealed, next phase": (SETUP, PHASE_2 + ("send 0 1 role",), Turn(),
                             {"message": Phrase.of("{agent} has already sent its message this phase", agent=MOON)}),
    "over": (SETUP, SEND_ALL + ("code 0 AAAA-BBBB-CCCC",) + DONE_ALL, Turn(), {}),
    "over, infiltrati": (OTHERS, ("send 0 1 role",), Turn(), {}),  # replaced below: a won game
    "warnings": (SETUP, (), Turn(), {"cues": Cues(warnings=(DISCONNECTED,), timer=TIMER)}),
    # pass-and-play
    "pass": (SETUP, SEND_ALL[:2], Turn(Stage.PASS, 2), {}),
    "pass, truth": (SETUP, TO_TRUTH, Turn(Stage.PASS, 1), {}),
    "hidden": (SETUP, SEND_ALL[:3], Turn(Stage.HIDDEN, 2), {}),
    "wait": (SETUP, SEND_ALL + DONE_ALL, Turn(Stage.WAIT), {"cues": Cues(timer=TIMER)}),
    "agent, message to": (SETUP, (), agent(0, ()), {}),
    "agent, message fact": (SETUP, (), agent(0, (), ("send", "3")), {}),
    "agent, informatore": (INFORMANTS, (), agent(1, (), ("send", "4"), INFORMANTS), {}),
    "agent, private": (SETUP, SEND_ALL, agent(1, SEND_ALL), {}),
    "agent, code": (SETUP, MOON_SEES_RED, agent(0, MOON_SEES_RED, ("code", "AAAA")), {}),
    "agent, block": (SETUP, SEND_ALL, agent(1, SEND_ALL, ("block",)), {}),
    "agent, profile": (OTHERS, SEND_ALL, agent(2, SEND_ALL, ("profile", "1"), OTHERS), {}),
    "agent, vote": (SETUP, TO_TRUTH[:-6], agent(2, TO_TRUTH[:-6], ("vote",)), {}),
    "agent, extort": (SETUP, TO_TRUTH[:-6], agent(2, TO_TRUTH[:-6], ("vote", "1")), {}),
    "agent, reveal": (SETUP, TO_TRUTH, agent(1, TO_TRUTH), {}),
    "agent, results": (SETUP, PHASE_2 + SEND_ALL + ("block 1 3", "code 0 AAAA-BBBB-CCCC"),
                       agent(0, PHASE_2 + SEND_ALL + ("block 1 3", "code 0 AAAA-BBBB-CCCC")), {}),
    "agent, nothing to do": (SETUP, SEND_ALL[:1], Turn(Stage.AGENT, 0, (1, "messages")), {}),
}
JOIN_LINKS = tuple(f"http://192.168.1.20:8024/p/seat{seat}-token-Zq8x1vYpQ3" for seat in range(SEATS))
SCENES["joining, seat 2 next"] = (SETUP, (), Turn(), {"joins": (None, None) + JOIN_LINKS[2:]})
SCENES["joining, last seat"] = (SETUP, SEND_ALL[:2], Turn(), {"joins": (None,) * 5 + JOIN_LINKS[5:]})
SCENES["a new code for seat 2?"] = (SETUP, (), Turn(releasing=2), {"joins": (None,) * SEATS})
SCENES["a new code, pass-and-play"] = (SETUP, SEND_ALL[:2], Turn(Stage.PASS, 2, releasing=4),
                                       {"joins": (None,) * 5 + JOIN_LINKS[5:]})
INFILTRATI_WIN = ("send 1 0 role", "send 0 4 role", "send 2 0 position", "send 3 1 role", "send 4 3 role",
                  "send 5 4 role", "code 0 J4DE-GH0S-ECH0") + DONE_ALL
SCENES["over, infiltrati"] = (OTHERS, INFILTRATI_WIN, Turn(), {})


def model(name, lang="en"):
    setup, actions, turn, extra = SCENES[name]
    return CodexModel(game, state(actions, setup), "game-1", lang=lang, **extra), turn


def surface():
    return pygame.Surface((800, 480))


def frame(name, lang="en"):
    m, turn = model(name, lang)
    return draw_codex(surface(), m, turn)


def centre(rect):
    x, y, w, h = rect
    return x + w // 2, y + h // 2


# --- every step, both languages ---------------------------------------------------------------


def test_the_scenes_reach_the_steps_they_are_named_for():
    steps = {name: model(name)[0].state for name in SCENES}
    assert steps["truth"].step == "truth" and steps["truth"].truth == 1
    assert steps["over, infiltrati"].winner.value == "red" and steps["over, infiltrati"].winning_seat == 0
    assert steps["agent, reveal"].truth == 1 and steps["revealed, next phase"].phase == 2
    assert game.known_fragments(steps["agent, code"], 0) == ("AAAA", "BBBB", "CCCC")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", SCENES)
def test_every_step_draws_with_finger_sized_taps_that_do_not_overlap(name, lang):
    drawn = frame(name, lang)
    assert drawn.texts
    rects = [pygame.Rect(tap.rect) for tap in drawn.taps]
    for rect in rects:
        assert min(rect.w, rect.h) >= 60, f"{rect} is smaller than a finger"
        assert pygame.Rect(0, 0, 800, 480).contains(rect)
    for a, b in itertools.combinations(rects, 2):
        assert not a.colliderect(b), f"{a} overlaps {b}"


@pytest.mark.parametrize("name", SCENES)
def test_italian_frames_have_no_untranslated_msgid(name, monkeypatch):
    missed = record_untranslated(monkeypatch, "pi_table.ui.i18n.translation", "pi_table.ui.canvas.translation")
    frame(name, "it")
    assert missed == []


def words(name, lang="en"):
    return " | ".join(frame(name, lang).texts)


def test_the_words_of_each_step():
    assert "Phase 1 · Messages" in words("messages") and "Fase 1 · Comunicazioni private" in words("messages", "it")
    assert "The agents are sending their messages" in words("messages")
    assert "Fase 1 · Macchina della verità" in words("truth", "it")
    assert "Aleman (posto 1) è alla macchina della verità" in words("truth", "it")
    assert "5 votes" in words("truth") and "1 vote" in words("truth") and "5 voti" in words("truth", "it")
    assert "votes for Aleman" in words("vote") and "1 vote" in words("vote")  # ballots are public as cast
    assert "role: Hacker" in words("revealed, next phase") and "ruolo: Hacker" in words("revealed, next phase", "it")
    assert "Hacker · Inquisitore · Leader" in words("messages")
    assert "RED FACTION WINS" in words("over") and "VINCE LA FAZIONE ROSSA" in words("over", "it")
    assert "Moon (seat 0) entered red's code: red wins" in words("over")
    assert "AAAA" in words("over") and "1 · AAAA" in words("over")
    assert "1:36" in words("discussion") and "VOTE NOW" in words("discussion")
    assert "Scheda touch scollegata" in words("warnings", "it")
    assert "Pass the screen to Viper (seat 2)" in words("pass") and "I AM VIPER" in words("pass")
    assert "Passa lo schermo: tocca a Viper (posto 2)" in words("pass", "it") and "SONO VIPER" in words("pass", "it")
    assert "Hidden. Pass the screen to the next agent" in words("hidden")
    shown = words("over, infiltrati")
    assert "Infiltrato" in shown and "shows red" in shown and "shows blue" in shown


def test_a_public_refusal_shows_translated_and_a_secret_one_never():
    assert "Moon (seat 0) has already sent its message this phase" in words("revealed, next phase")
    assert "Moon (posto 0) ha già inviato la sua comunicazione in questa fase" in words("revealed, next phase", "it")
    secret = Phrase.of("{agent} has already entered a code this phase", agent=MOON)
    m = CodexModel(game, state(SEND_ALL), "game-1", message=secret)
    texts = " | ".join(draw_codex(surface(), m).texts)
    assert "entered a code" not in texts


# --- the engine's sentences ----------------------------------------------------------------------


def probes(seat):
    yield from (Send(seat, to, (fact,)) for to in range(SEATS) for fact in Fact)
    yield from (Send(seat, (seat + 1) % 6, (Fact.ROLE, fact)) for fact in (Fact.CODENAME, Fact.POSITION))
    yield from (EnterCode(seat, code) for code in ("AAAA-BBBB-CCCC", "J4DE-GH0S-ECH0", "ZZZZ-ZZZZ-ZZZZ"))
    yield from (Block(seat, target) for target in range(SEATS))
    yield from (Profile(seat, number, fact) for number in (1, 2, 9) for fact in Fact)
    yield Done(seat)
    yield from (Vote(seat, target, fact) for target in range(SEATS) for fact in (None, *Fact))
    yield from (Reveal(seat, fact) for fact in Fact)


def refusals():
    """Every refusal met over random games of several setups, and every reason a game ended."""
    found = set()
    for setup, seed in itertools.product((SETUP, OTHERS, INFORMANTS), range(2)):
        rng = random.Random(seed)
        s = game.start(game.parse_setup(setup))
        for _ in range(120):
            for action in [EndDiscussion(), *(a for seat in range(SEATS) for a in probes(seat))]:
                try:
                    game.apply(s, action)
                except (RuleError, InvalidAction) as refusal:
                    found.add(refusal.phrase)
            if s.is_over:
                found.add(game.reason(s))
                break
            s = game.apply(s, rng.choice(game.legal_actions(s)))
    return found


SECRETS = re.compile(r"not an? (Hacker|Profiler|Informatore|Inquisitore)|Hacker blocked|code was wrong|entered a code"
                     r"|asked its|Informatore sending|power in phase|already blocked|never blocks|no message|"
                     r"already says|as a message arrives|blocks another|fragment came")


@pytest.mark.slow  # some 11 s of CPU by itself: out of ./dev test (issue 40)
def test_public_sentences_are_translated_and_no_secret_is_public():
    found = refusals()
    public = {phrase for phrase in found if public_refusal(phrase) is not None}
    assert len(public) > 15 and any("reveal another fact" in str(phrase) for phrase in public)
    for phrase in public:
        assert i18n.say(phrase, "en") == str(phrase)
        assert i18n.say(phrase, "it") != str(phrase)
        assert not SECRETS.search(str(phrase)), phrase
    assert any(SECRETS.search(str(phrase)) for phrase in found - public)  # the secret ones were met, and kept back


# --- privacy --------------------------------------------------------------------------------------


def fragments(setup):
    return {agent.fragment for agent in game.parse_setup(setup).agents}


ROLE_WORDS = {"Hacker", "Infiltrato", "Informatore", "Inquisitore", "Leader", "Profiler"}


def public_frames(setup, actions, lang):
    """Every public-side stage (table, pass, hidden, wait) drawn after each action."""
    s = game.start(game.parse_setup(setup))
    for text in (None, *actions):
        if text is not None:
            s = game.apply(s, parse_codex_action(text))
        m = CodexModel(game, s, "game-1", lang=lang)
        waiting = game.waiting_for(s)
        turns = [Turn(), Turn(Stage.WAIT), Turn(Stage.HIDDEN, 0)] + [Turn(Stage.PASS, seat) for seat in waiting]
        for turn in turns:
            yield s, draw_codex(surface(), m, turn)


@pytest.mark.parametrize("lang", LANGS)
def test_the_public_side_shows_no_fragment_and_no_role_of_any_agent(lang):
    """Until the truth machine or the end makes them public."""
    actions = SEND_ALL + ("code 0 AAAA-CCCC-BBBB", "block 1 3") + DONE_ALL + ("end-discussion",) + VOTES
    for s, drawn in public_frames(SETUP, actions + ("reveal 1 fragment",), lang):
        revealed = {str(r.value) for r in s.revelations}
        shown = " | ".join(drawn.texts)
        assert {f for f in fragments(SETUP) if f in shown} <= revealed
        roles_line = " · ".join(cs.ROLE_TITLES[role] for role in s.setup.roles)
        for text in drawn.texts:
            if text != roles_line:
                assert not ROLE_WORDS & set(re.findall(r"\w+", text)), text


@pytest.mark.parametrize("lang", LANGS)
def test_the_public_side_is_the_same_picture_whatever_the_secrets(lang):
    """Two games that differ only in secrets draw the same pixels on every public stage."""
    actions = SEND_ALL + DONE_ALL + ("end-discussion",) + VOTES[:5]
    images = [[], []]
    for i, setup in enumerate((SETUP, SHUFFLED)):
        s = game.start(game.parse_setup(setup))
        for text in actions:
            s = game.apply(s, parse_codex_action(text))
            assert game.public_view(s) == game.public_view(state(actions[: actions.index(text) + 1]))
            for turn in (Turn(), Turn(Stage.HIDDEN, 3), next_call(game.public_view(s))):
                image = surface()
                draw_codex(image, CodexModel(game, s, "game-1", lang=lang), turn)
                images[i].append(pygame.image.tostring(image, "RGB"))  # tobytes is 2.1.3's; the Pi's is 2.1.2
    assert images[0] == images[1]


@pytest.mark.parametrize("lang", LANGS)
def test_an_agent_at_the_screen_sees_only_its_own_view(lang):
    """Seat 3's turn is the same picture in two games where every other agent's secrets
    differ, and shows no fragment its own view does not hold."""
    actions = ("send 0 1 position", "send 1 2 role", "send 2 0 faction", "send 3 4 position", "send 4 5 role",
               "send 5 0 codename", "done 0", "done 1")
    for i in range(len(actions) + 1):
        views, images = [], []
        for setup in (SETUP, SHUFFLED):
            s = state(actions[:i], setup)
            if 3 not in game.waiting_for(s):
                continue
            views.append(game.agent_view(s, 3))
            for choice in ((), ("send",), ("send", "4"), ("block",), ("code",)):
                image = surface()
                drawn = draw_codex(image, CodexModel(game, s, "game-1", lang=lang),
                                   Turn(Stage.AGENT, 3, (s.phase, s.step), choice))
                images.append(pygame.image.tostring(image, "RGB"))
                holds = json.dumps(game.agent_view(s, 3).to_json())
                shown = " | ".join(drawn.texts)
                assert {f for f in fragments(setup) if f in shown} <= {f for f in fragments(setup) if f in holds}
        if views:
            assert views[0] == views[1]
            assert images[: len(images) // 2] == images[len(images) // 2 :]


def test_each_agent_sees_its_inbox_and_no_one_elses():
    s = state(SEND_ALL)  # each agent got the fragment of the seat before it
    for seat in range(SEATS):
        shown = " | ".join(draw_codex(surface(), CodexModel(game, s, "g"), agent(seat, SEND_ALL)).texts)
        own, got = s.setup.agents[seat].fragment, s.setup.agents[(seat - 1) % 6].fragment
        assert own in shown and got in shown
        assert not (fragments(SETUP) - {own, got}) & set(re.findall(r"[A-Z0-9]{4}", shown))


# --- the painter: pass-and-play by taps -------------------------------------------------------


class Table:
    """A Codex table on simulated devices, its screen drawn by the real painter, played by taps."""

    def __init__(self, setup=SETUP, lang="en"):
        self.session = Session(CodexRules(), key=game.parse_setup(setup))
        self.now = 1000.0
        self.loop = CodexLoop(self.session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(),
                              clock=lambda: self.now, discussion_s=60, lang=lang)
        self.loop.open()
        self.painter = ScreenPainter()
        self.image = surface()
        self.draw()

    def draw(self):
        return self.painter.draw(self.image, self.loop.screen.last, self.now)

    def press(self, tap):
        command = self.painter.tap(centre(tap.rect))
        if command is not None:
            self.loop.post(UiEvent(command))
            outcomes = self.loop.run_pending()
            assert [o.ok for o in outcomes] == [True], outcomes
        return self.draw()

    def act(self, text):
        """Tap through the menus to the action, as the agent at the screen would."""
        action = parse_codex_action(text)
        for _ in range(6):
            route = self.painter.current.route(action)
            assert route is not None, f"no way to {text} on {self.painter.frame.texts}"
            sends = route.command == action
            self.press(route)
            if sends:
                return
        raise AssertionError(f"{text} took too many taps")

    @property
    def turn(self):
        return self.painter.current.turn

    @property
    def state(self):
        return self.session.state


def play_agents(table, actions):
    """Each action by its agent: called to the screen, "I am", tapped through; once the agent
    is done with the step the screen hides, and NEXT AGENT calls the next one (none is called
    once the game is over)."""
    for text in actions:
        seat = parse_codex_action(text).seat
        if table.turn.stage is not Stage.AGENT:
            assert table.turn == Turn(Stage.PASS, seat), (text, table.turn)
            table.press(tap_to(table, Stage.AGENT))
        assert table.turn.stage is Stage.AGENT and table.turn.seat == seat
        table.act(text)
        if table.turn.stage is Stage.HIDDEN and not table.state.is_over:
            assert table.turn == Turn(Stage.HIDDEN, seat)
            table.press(tap_to(table, Stage.PASS, Stage.WAIT))


def tap_to(table, *stages):
    """The one tap on the frame that moves pass-and-play to one of ``stages``."""
    hits = [tap for tap in table.painter.frame.taps if isinstance(tap.mode, Turn) and tap.mode.stage in stages]
    assert len(hits) == 1, (stages, table.painter.frame.texts)
    return hits[0]


def test_a_whole_game_by_taps_through_pass_and_play():
    table = Table()
    table.press(tap_to(table, Stage.PASS))  # PASS AND PLAY
    # phase 1: messages, private turns (Aleman blocks Falco), the discussion, the vote, the truth machine
    play_agents(table, ("send 0 1 position", "send 1 0 role", "send 2 0 position", "send 3 4 role",
                        "send 4 5 role", "send 5 3 position"))
    assert table.state.step == "private"
    play_agents(table, ("done 0", "block 1 3", "done 1", "done 2", "done 3", "done 4", "done 5"))
    assert table.state.step == "discussion" and table.turn == Turn(Stage.WAIT)
    table.press(next(tap for tap in table.painter.frame.taps if tap.command == EndDiscussion()))  # VOTE NOW
    assert table.state.step == "vote" and table.turn == Turn(Stage.PASS, 0)
    play_agents(table, ("vote 0 3", "vote 1 3", "vote 2 3 extort fragment", "vote 3 0", "vote 4 0", "vote 5 0"))
    assert table.state.step == "truth" and table.state.truth == 3 and table.turn == Turn(Stage.PASS, 3)
    play_agents(table, ("reveal 3 fragment",))  # Viper extorted the fragment: the one reveal Falco may make
    assert [str(r.value) for r in table.state.revelations] == ["DDDD"]
    assert "fragment: DDDD" in table.painter.frame.texts
    # phase 2, from Falco's neighbour round the table: Moon has seen BBBB and CCCC and enters the red code
    assert table.turn == Turn(Stage.PASS, 4)
    play_agents(table, ("send 4 5 role", "send 5 0 role", "send 0 1 role", "send 1 2 role", "send 2 3 role",
                        "send 3 4 role"))
    play_agents(table, ("done 4", "done 5", "code 0 AAAA-BBBB-CCCC", "done 0", "done 1", "done 2", "done 3"))
    assert table.state.is_over and table.state.winner.value == "red"
    texts = table.painter.frame.texts
    assert "RED FACTION WINS" in texts and "WINNING CODE" in texts and "TRUTH MACHINE" not in texts
    assert "NEXT AGENT" not in texts and "Hidden. Pass the screen to the next agent" not in texts  # nobody's turn
    assert [tap.command for tap in table.painter.frame.taps if isinstance(tap.mode, Turn)] == []
    table.press(next(tap for tap in table.painter.frame.taps if tap.command == NewGame()))
    assert not table.state.is_over and table.turn == Turn()


def test_a_code_is_three_taps_on_the_fragments_seen_in_order():
    table = Table()
    table.press(tap_to(table, Stage.PASS))
    play_agents(table, MOON_SEES_RED)
    table.press(tap_to(table, Stage.AGENT))
    table.press(route_word(table, "code"))

    def offered(depth):
        return [tap.mode.choice[-1] for tap in table.painter.frame.taps if isinstance(tap.mode, Turn)
                and tap.mode.stage is Stage.AGENT and len(tap.mode.choice) == depth]

    assert offered(2) == ["AAAA", "BBBB", "CCCC"]  # what Moon has seen: its own and its inbox
    table.press(route_word(table, "CCCC"))
    assert offered(3) == ["AAAA", "BBBB"]  # a fragment is used once
    assert "the code so far: CCCC" in table.painter.frame.texts  # on its own, not after the prompt's position
    assert "Your faction's code: the fragment in position 2" in table.painter.frame.texts
    table.press(next(tap for tap in table.painter.frame.taps if isinstance(tap.mode, Turn) and tap.mode.choice == ("code",)))
    assert offered(2) == ["AAAA", "BBBB", "CCCC"]  # BACK


def route_word(table, word):
    return next(tap for tap in table.painter.frame.taps if isinstance(tap.mode, Turn) and tap.mode.choice
                and tap.mode.choice[-1] == word and tap.mode.stage is Stage.AGENT)


def test_only_the_called_agent_can_come_to_the_screen_and_hide_hands_it_back():
    table = Table()
    table.press(tap_to(table, Stage.PASS))
    assert table.turn == Turn(Stage.PASS, 0)
    agents = [tap for tap in table.painter.frame.taps if isinstance(tap.mode, Turn) and tap.mode.stage is Stage.AGENT]
    assert [tap.mode.seat for tap in agents] == [0]  # one "I am" button, for Moon
    table.press(agents[0])
    table.press(tap_to(table, Stage.HIDDEN))  # HIDE: Moon changed its mind
    assert table.turn == Turn(Stage.HIDDEN, 0) and table.state.acted == ()
    assert not fragments(SETUP) & set(" ".join(table.painter.frame.texts).split())
    table.press(tap_to(table, Stage.PASS))  # NEXT AGENT goes round the table: Aleman
    assert table.turn == Turn(Stage.PASS, 1)


def test_an_agent_that_acts_from_its_phone_is_passed_over():
    table = Table()
    table.press(tap_to(table, Stage.PASS))
    table.loop.post(UiEvent(parse_codex_action("send 0 2 role")))  # Moon's phone
    table.loop.run_pending()
    table.draw()
    assert table.turn == Turn(Stage.PASS, 1)


def test_the_agents_own_refusal_shows_to_it_alone():
    """Moon's code button was on the screen when Moon's phone entered a code: the refusal is
    Moon's to read, in its own turn, and never on the public side."""
    table = Table()
    table.press(tap_to(table, Stage.PASS))
    play_agents(table, MOON_SEES_RED)
    table.press(tap_to(table, Stage.AGENT))
    for word in ("code", "AAAA", "BBBB"):
        table.press(route_word(table, word))
    last = next(tap for tap in table.painter.frame.taps if tap.command == EnterCode(0, "AAAA-BBBB-CCCC"))
    table.loop.post(UiEvent(EnterCode(0, "BBBB-AAAA-CCCC")))  # the phone's code, before the screen redraws
    table.loop.run_pending()
    command = table.painter.tap(centre(last.rect))
    table.loop.post(UiEvent(command))
    [outcome] = table.loop.run_pending()
    assert not outcome.ok and "already entered a code" in outcome.error
    table.draw()
    assert table.turn.stage is Stage.AGENT
    assert "Moon (seat 0) has already entered a code this phase" in table.painter.frame.texts
    table.press(tap_to(table, Stage.HIDDEN))
    assert not any("entered a code" in text for text in table.painter.frame.texts)


def test_stop_leaves_pass_and_play_and_a_new_game_forgets_it():
    table = Table()
    table.press(tap_to(table, Stage.PASS))
    table.press(tap_to(table, Stage.TABLE))  # STOP
    assert table.turn == Turn()
    table.press(tap_to(table, Stage.PASS))
    table.loop.post(UiEvent(NewGame()))
    table.loop.run_pending()
    table.draw()
    assert table.turn == Turn()


# --- the pygame backend ----------------------------------------------------------------------------


@pytest.mark.arm64  # Codex through the Pi's pygame backend, a tap through its SDL's events
def test_the_backend_shows_codex_and_a_tap_becomes_an_agents_action(tmp_path):
    events = queue.Queue()
    screen = PygameScreen(ScreenPainter(), size=(800, 480), video_driver="dummy")
    screen.start(events.put)
    try:
        m, _ = model("discussion")
        screen.show(m)
        screen.screenshot(tmp_path / "s.png")
        assert "VOTE NOW" in screen.painter.frame.texts
        vote_now = next(tap for tap in screen.painter.frame.taps if tap.command == EndDiscussion())
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=centre(vote_now.rect), button=1))
        assert events.get(timeout=2) == UiEvent(EndDiscussion())
    finally:
        screen.stop()


@pytest.mark.arm64  # a join code drawn by the Pi's pygame, read back
def test_the_screen_shows_one_seats_join_code_at_a_time_until_every_phone_has_opened_its_page(tmp_path):
    zxingcpp = pytest.importorskip("zxingcpp")

    def codes(m) -> list[str]:
        image = surface()
        draw_codex(image, m, Turn())
        pygame.image.save(image, str(tmp_path / "join.png"))
        return [code.text for code in zxingcpp.read_barcodes(pygame.surfarray.array3d(image).swapaxes(0, 1).copy())]

    m, _ = model("joining, seat 2 next")
    assert codes(m) == [JOIN_LINKS[2]]
    assert "Viper (seat 2): scan with your phone to join" in draw_codex(surface(), m, Turn()).texts
    m, _ = model("joining, last seat")
    assert codes(m) == [JOIN_LINKS[5]]
    assert codes(CodexModel(game, m.state, "game-1", joins=(None,) * SEATS)) == []
    assert codes(CodexModel(game, m.state, "game-1")) == []  # no companion: no codes at all


def test_the_table_shows_each_ballot_as_it_is_cast():
    """The book votes in public: each seat's card says whom it voted for, and the count so far."""
    actions = SEND_ALL + DONE_ALL + ("end-discussion", "vote 2 1", "vote 0 1")
    for lang, says in (("en", ("votes for Aleman", "2 votes")), ("it", ("vota Aleman", "2 voti"))):
        drawn = draw_codex(surface(), CodexModel(game, state(actions), "game-1", lang=lang), Turn())
        shown = " | ".join(drawn.texts)
        assert all(words in shown for words in says), shown
    sealed = Codex(CodexRules(sealed_votes=True))
    s = sealed.start(sealed.parse_setup(SETUP))
    for text in actions:
        s = sealed.apply(s, parse_codex_action(text))
    shown = " | ".join(draw_codex(surface(), CodexModel(sealed, s, "game-1"), Turn()).texts)
    assert "votes for" not in shown and "2 votes" not in shown
