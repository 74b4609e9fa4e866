"""Codex on the phones: each agent's page, the public page, and what each may carry.

The seat pages are the agents' only way to act, so the tests check three things: a seat's
entry says no more than the engine's observer for that agent (over random games, against a
twin game that differs in everything else), a page acts for its own seat alone, and a whole
game can be played by tapping the pages in a real browser.
"""

from __future__ import annotations

import json
import random
import re
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_table.engine import InvalidAction, RuleError
from pi_table.engine.codex import Codex, CodexState
from pi_table.engine.codex_actions import EnterCode, parse_codex_action
from pi_table.engine.codex_setup import Fact, parse_setup
from pi_table.hal import TimerState
from pi_table.web import Companion, Tokens
from pi_table.web.codex_pages import codex_snapshot, seat_action
from pi_table.web.tokens import role_seat, seat_role

from helpers import wait_for
from helpers_games import choose, games, known_fragments, pick, scrambled, submit
from helpers_phones import Phones, get, post

SETUP = (
    "Moon:red:leader:1:K7QM Aleman:blue:hacker:2:X53T Viper:red:infiltrato:3:R8WD "
    "Falco:blue:leader:3:P2HN Nebbia:red:hacker:2:J4ZC Orso:blue:infiltrato:1:F9LB"
)
"""Red: Moon (Leader, 1), Nebbia (Hacker, 2), Viper (Infiltrato shown blue, 3): K7QM-J4ZC-R8WD.
Blue: Orso (Infiltrato shown red, 1), Aleman (Hacker, 2), Falco (Leader, 3)."""
FRAGMENTS = ("K7QM", "X53T", "R8WD", "P2HN", "J4ZC", "F9LB")


@pytest.fixture
def tokens():
    return Tokens(b"0123456789abcdef0123456789abcdef")


def entry(snapshot, tokens, seat: int, game_id: str = "g1") -> dict:
    role, value = snapshot.private[tokens.token(game_id, seat_role(seat))]
    assert role == seat_role(seat)
    return value




# --- the snapshot ------------------------------------------------------------------------------


def test_the_snapshot_has_a_public_entry_and_one_per_seat_behind_its_token(tokens):
    game = Codex()
    state = game.start(parse_setup(SETUP))
    snapshot = codex_snapshot("g1", game, state, tokens)
    assert snapshot.public == {
        "kind": "codex-public", "game_id": "g1", "title": "Codex", "timer": None, "view": game.public_view(state).to_json(),
    }
    assert not any(fragment in json.dumps(snapshot.public) for fragment in FRAGMENTS)
    assert sorted(role for role, _ in snapshot.private.values()) == [f"seat-{n}" for n in range(6)]
    for seat in range(6):
        page = entry(snapshot, tokens, seat)
        assert page["kind"] == "codex-seat" and page["game_id"] == "g1" and page["seat"] == seat
        assert page["view"] == game.agent_view(state, seat).to_json()
        assert page["title"] == f"Codex: {state.setup.agents[seat].codename}"
        assert page["fragments"] == [FRAGMENTS[seat]]
        assert [FRAGMENTS[other] in json.dumps(page) for other in range(6)] == [other == seat for other in range(6)]
    assert entry(snapshot, tokens, 0)["legal"][:3] == ["send 0 1 codename", "send 0 1 faction", "send 0 1 role"]
    assert tokens.token("g0", "seat-0") not in snapshot.private


def test_the_discussion_timer_goes_to_every_page_while_it_runs(tokens):
    game = Codex()
    state = game.start(parse_setup(SETUP))
    running = codex_snapshot("g1", game, state, tokens, TimerState(180, 41.2, 10, True, True))
    assert running.public["timer"] == {"remaining_s": 42, "length_s": 180}
    assert all(view["timer"] == running.public["timer"] for _, view in running.private.values())
    stopped = codex_snapshot("g1", game, state, tokens, TimerState(180, 180, 10, True, False))
    assert stopped.public["timer"] is None


def test_a_code_is_one_legal_entry_with_the_fragments_seen_to_pick_from(tokens):
    game = Codex()
    state = game.start(parse_setup(SETUP))
    for text in ["send 0 4 position", "send 4 0 position", "send 2 0 position", "send 1 3 role", "send 3 1 codename",
                 "send 5 3 position", "block 1 0"]:
        state = game.apply(state, parse_codex_action(text))
    snapshot = codex_snapshot("g1", game, state, tokens)
    moon, nebbia, aleman = (entry(snapshot, tokens, seat) for seat in (0, 4, 1))
    assert moon["fragments"] == ["J4ZC", "K7QM", "R8WD"]
    assert moon["legal"] == ["done 0", "code 0"] and moon["view"]["blocked_in"] == []  # blocked, told as the step ends
    assert nebbia["legal"] == ["done 4", "block 4 0", "block 4 1", "block 4 2", "block 4 3", "block 4 5", "code 4"]
    assert "code 1" in aleman["legal"] and "block 1 0" not in aleman["legal"] and "done 1" in aleman["legal"]


@pytest.mark.slow  # some 8 s of CPU by itself: out of ./dev test (issue 40)
@settings(settings.get_profile("phones"), suppress_health_check=[HealthCheck.too_slow])
@given(dealt=games(), actions_seed=st.integers(0, 2**32 - 1))
def test_no_seat_entry_tells_what_its_agent_may_not_know(dealt, actions_seed):
    """Over random games: a seat's entry holds no other agent's fragment unless that agent sent it
    to this seat or the truth machine revealed it, and it stays the same in a twin game where
    the other agents' identikits and their private actions differ.
    The legal texts are exactly the engine's (codes collapsed), each one accepted."""
    game, setup = dealt
    tokens = Tokens(b"0123456789abcdef0123456789abcdef")
    state = game.start(setup)
    rng = random.Random(actions_seed)
    for step in range(400):
        if step < 60 or step % 7 == 0 or state.is_over:
            check_entries(game, state, codex_snapshot("g1", game, state, tokens), tokens, rng)
        if state.is_over:
            break
        state = game.apply(state, choose(game, state, rng))


def check_entries(game: Codex, state: CodexState, snapshot, tokens: Tokens, rng: random.Random) -> None:
    fragments = {agent.fragment for agent in state.setup.agents}
    public_text = json.dumps(snapshot.public)
    revealed = {str(r.value) for r in state.revelations if r.fact is Fact.FRAGMENT}
    assert {f for f in fragments if f in public_text} <= (fragments if state.is_over else revealed)
    for seat in range(6):
        page = entry(snapshot, tokens, seat)
        text = json.dumps(page)
        assert {f for f in fragments if f in text} <= known_fragments(state, seat), f"seat {seat} sees a fragment"
        listed = [str(a) for a in game.legal_actions(state, seat) if not isinstance(a, EnterCode)]
        code = [f"code {seat}"] if game.may_enter_code(state, seat) else []
        assert page["legal"] == listed + code
        for action_text in page["legal"][:: max(1, len(page["legal"]) // 5)]:
            if action_text not in code:
                game.apply(state, seat_action(seat, action_text))
        if code:
            game.apply(state, seat_action(seat, f"code {seat} {'-'.join(rng.sample(page['fragments'] * 3, 3))}"))
        if state.is_over:
            continue
        twin = scrambled(state, seat, rng)  # the open vote's ballots are public as cast: the twin keeps them
        twin_snapshot = codex_snapshot("g1", game, twin, tokens)
        assert entry(twin_snapshot, tokens, seat) == page, f"seat {seat}'s entry tells what it may not know"
        assert twin_snapshot.public == snapshot.public


def test_a_page_acts_for_its_own_seat_only():
    assert seat_action(2, "send 2 4 position") == parse_codex_action("send 2 4 position")
    assert seat_action(0, "  code 0 k7qm-j4zc-r8wd ") == parse_codex_action("code 0 K7QM-J4ZC-R8WD")
    for text, problem in [
        ("send 4 0 role", "this page is seat 2's: it cannot act for seat 4"),
        ("done 3", "this page is seat 2's: it cannot act for seat 3"),
        ("vote 0 1 extort role", "this page is seat 2's: it cannot act for seat 0"),
        ("end-discussion", "the discussion ends by the table's timer, not from a phone"),
        ("", "an empty line is not an action"),
        ("hello 2", "Codex's commands are send, code, block, profile, done, end-discussion, vote, reveal, not 'hello'"),
        ("send 2", "'send' is written send SEAT TO FACT [FACT]"),
        ("code 2 ABC", "a code is three fragments of 4 letters or digits"),
    ]:
        with pytest.raises(InvalidAction, match=re.escape(problem)):
            seat_action(2, text)


# --- the pages over HTTP -----------------------------------------------------------------------


class Table:
    """The daemon's part, in small: one Codex game whose actions come from the pages (through
    ``seat_action``, then the engine) or from the table itself (the discussion's timer), with
    a new snapshot published after each accepted one."""

    def __init__(self, companion: Companion, tokens: Tokens, setup: str = SETUP, game_id: str = "g1") -> None:
        self.companion, self.tokens, self.game_id = companion, tokens, game_id
        self.game = Codex()
        self.state = self.game.start(parse_setup(setup))
        self.accepted: list[str] = []
        self.lock = threading.Lock()
        companion.act = self.act
        self.publish()

    def publish(self) -> None:
        self.companion.publish(codex_snapshot(self.game_id, self.game, self.state, self.tokens))

    def act(self, game_id: str, role: str, text: str) -> str | None:
        if game_id != self.game_id:
            return "this page belonged to a game that has ended"
        try:
            self.apply(seat_action(role_seat(role), text))
        except (RuleError, InvalidAction) as refusal:
            return str(refusal)
        return None

    def apply(self, action) -> None:
        with self.lock:
            self.state = self.game.apply(self.state, action)
            self.accepted.append(str(action))
            self.publish()

    def timer_ran_out(self) -> None:
        self.apply(parse_codex_action("end-discussion"))

    def link(self, seat: int) -> str:
        return self.companion.link(self.tokens.token(self.game_id, seat_role(seat)))


@pytest.fixture
def table(tokens):
    companion = Companion("127.0.0.1", 0)
    companion.start()
    yield Table(companion, tokens)
    companion.stop()


def act_url(table: Table, token: str) -> str:
    return f"{table.companion.base_url}/api/p/{token}/act"


def action(text: str) -> bytes:
    return json.dumps({"action": text}).encode()


def test_each_token_acts_for_its_own_seat_and_the_table_says_why_not(table, tokens):
    viper = tokens.token("g1", "seat-2")
    assert post(act_url(table, viper), action("send 2 0 position")) == (200, {"ok": True, "error": None})
    assert table.accepted == ["send 2 0 position"]
    for text, problem in [
        ("send 4 0 role", "this page is seat 2's: it cannot act for seat 4"),
        ("end-discussion", "the discussion ends by the table's timer, not from a phone"),
        ("send 2 1 role", "Viper (seat 2) has already sent its message this phase"),
        ("vote 2 0", "agents vote only in the vote step: the agents are sending their messages"),
        ("bribe 2 0", "Codex's commands are send, code, block, profile, done, end-discussion, vote, reveal, not 'bribe'"),
    ]:
        status, answer = post(act_url(table, viper), action(text))
        assert status == 409 and answer["ok"] is False and answer["error"].startswith(problem)
    assert table.accepted == ["send 2 0 position"]
    page = json.loads(get(f"{table.companion.base_url}/api/p/{viper}")[1])
    assert page["view"]["public"]["acted"] == [2] and page["legal"] == []
    assert post(act_url(table, "not-a-token"), action("send 2 0 position")) == (404, None)
    assert get(f"{table.companion.base_url}/api/p/not-a-token") == (404, b"")


def test_an_old_token_opens_nothing_once_a_new_game_is_dealt(table, tokens):
    old = tokens.token("g1", "seat-3")
    base = table.companion.base_url
    assert get(f"{base}/api/p/{old}")[0] == 200
    Table(table.companion, tokens, game_id="g2")
    for path in (f"/api/p/{old}", f"/p/{old}", f"/api/p/{old}/events"):
        assert get(base + path) == (404, b"")
    assert post(act_url(table, old), action("send 3 0 role")) == (404, None)
    new = json.loads(get(f"{base}/api/p/{tokens.token('g2', 'seat-3')}")[1])
    assert new["game_id"] == "g2" and new["seat"] == 3
    assert json.loads(get(f"{base}/api/public")[1])["kind"] == "codex-public"


# --- the pages in a real browser ---------------------------------------------------------------




def test_a_whole_game_played_on_six_phones(table, browser):
    """Phase 1: Aleman (blue Hacker) blocks Moon, Viper's one try is wrong, the vote sends Orso
    to the truth machine, which reveals its fragment. Phase 2: Moon, the red Leader, enters red's
    code from the fragments its mates sent it, and red wins."""
    phones = Phones(browser, table)
    try:
        moon, aleman, viper = (phones.pages[seat] for seat in range(3))
        moon.wait_for_selector("text=K7QM")
        assert moon.inner_text("#status") == "Phase 1: Messages"  # the step the game is in, not "connected"
        assert moon.evaluate("act('done 0')") is False  # a stale page's tap: the table's refusal, in words
        assert moon.inner_text("#status") == (
            "an agent ends its private turn only in the private step: the agents are sending their messages")
        assert moon.get_attribute("#status", "class") == "error"
        assert "blue shown · you belong to red · Infiltrato" in viper.inner_text(".identikit")
        for phase in (1, 2):
            for seat, to, fact in [(0, 4, "position"), (4, 0, "position"), (2, 0, "position"), (1, 3, "role"),
                                   (3, 1, "codename"), (5, 3, "position")]:
                phones.send(seat, to, fact)
            phones.check_privacy()
            if phase == 1:
                phones.taken(lambda: pick(aleman, "block", "Moon (seat 0)"), lambda: submit(aleman, "block"))
                phones.code(2, "R8WD", "J4ZC", "K7QM")
                viper.wait_for_selector("text=it is checked when all six are done")
                assert moon.locator('form[data-form="code"]').count() == 1  # Moon is told as the step ends
                assert "blocked" not in moon.inner_text("body")
                for seat in range(6):
                    phones.done(seat)
                viper.wait_for_selector("text=your code R8WD-J4ZC-K7QM: wrong")
                moon.wait_for_selector("text=a Hacker blocked you")
                phones.public.wait_for_selector("text=Phase 1: Discussion")
                moon.wait_for_selector("#status:text-is('Phase 1: Discussion')")  # the refusal went with its step
                table.timer_ran_out()
                for seat in range(6):
                    phones.vote(seat, 0 if seat == 5 else 5)
                    if seat == 1:  # the book votes in public: each ballot shows as it is cast
                        phones.public.wait_for_selector("text=Moon → Orso · Aleman → Orso")  # the second ballot's event too
                        assert "Vote of phase 1, so far" in phones.public.inner_text("body")
                        assert "votes for Orso" in phones.public.inner_text(".agents")
                orso = phones.pages[5]
                orso.wait_for_selector("text=You are at the truth machine.")
                phones.taken(lambda: pick(orso, "reveal", "fragment: F9LB"), lambda: submit(orso, "reveal"))  # noqa: B023 - called here
                phones.public.wait_for_selector("text=Orso (seat 5): fragment F9LB")
                assert "Orso: 5 → truth machine" in phones.public.inner_text("body")
                phones.check_privacy()
            else:
                assert aleman.locator('form[data-form="block"] label.chip', has_text="Moon").count() == 0
                moon.wait_for_selector("text=As the Leader you may try a code in every phase.")
                viper.wait_for_selector("text=Your code was wrong: you cannot try again.")
                assert viper.locator('form[data-form="code"]').count() == 0
                phones.code(0, "K7QM", "J4ZC", "R8WD")
                phones.check_privacy()
                for seat in range(6):
                    phones.done(seat)
        phones.public.wait_for_selector("text=Red wins")
        assert "Moon (seat 0) entered red's code: red wins" in phones.public.inner_text("body")
        moon.wait_for_selector("text=Red wins")
        assert table.state.winner is not None and table.state.winning_seat == 0
    finally:
        phones.close()


def test_the_informatore_the_profiler_and_the_inquisitore_use_their_powers_on_their_pages(tokens, browser):
    """Aleman, an Informatore, adds its role to its message to Viper; Viper, a Profiler, asks
    the sender's codename. In another game Nebbia, an Inquisitore, votes for Orso extorting its
    fragment: Orso chooses its role, the truth machine reveals the fragment."""
    companion = Companion("127.0.0.1", 0)
    companion.start()
    try:
        table = Table(companion, tokens, setup=SETUP.replace("hacker", "informatore").replace("infiltrato", "profiler"))
        phones = Phones(browser, table, seats=(1, 2))
        try:
            aleman, viper = phones.pages[1], phones.pages[2]
            aleman.wait_for_selector("text=As the Informatore you may add a second fact: your role.")
            phones.send(1, 2, "role: Informatore + position")
            for text in ("send 0 2 position", "send 2 0 position", "send 3 1 codename", "send 4 3 role", "send 5 1 faction"):
                table.apply(parse_codex_action(text))
            phones.taken(lambda: pick(viper, "profile", "X53T - role Informatore, position 2"),
                         lambda: pick(viper, "profile", "codename"), lambda: submit(viper, "profile"))
            viper.wait_for_selector("text=Profiler: the sender's codename is Aleman")
            assert viper.locator('form[data-form="profile"]').count() == 0  # once per game
            phones.check_privacy()
        finally:
            phones.close()

        table = Table(companion, tokens, setup=SETUP.replace("hacker", "inquisitore"), game_id="g2")
        for text in [f"send {seat} {(seat + 1) % 6} position" for seat in range(6)] + [f"done {s}" for s in range(6)]:
            table.apply(parse_codex_action(text))
        table.timer_ran_out()
        phones = Phones(browser, table, seats=(4, 5))
        try:
            nebbia, orso = phones.pages[4], phones.pages[5]
            phones.taken(lambda: pick(nebbia, "vote", "Orso (seat 5)"), lambda: pick(nebbia, "vote", "fragment"),
                         lambda: submit(nebbia, "vote"))
            for seat in (0, 1, 2, 3, 5):
                table.apply(parse_codex_action(f"vote {seat} {0 if seat == 5 else 5}"))
            # told before choosing, with nothing to choose: the form offers the extorted fact alone
            orso.wait_for_selector("text=An Inquisitore extorts your fragment: you have nothing to choose, reveal it.")
            assert orso.locator('form[data-form="reveal"] label.chip').all_inner_texts() == ["fragment: F9LB"]
            phones.taken(lambda: pick(orso, "reveal", "fragment: F9LB"), lambda: submit(orso, "reveal"))
            phones.public.wait_for_selector("text=Orso (seat 5): fragment F9LB")
            orso.wait_for_selector("text=an Inquisitore made the truth machine reveal your fragment")
            nebbia.wait_for_selector("text=you extorted Orso (seat 5)'s fragment: extorted")
        finally:
            phones.close()
    finally:
        companion.stop()


def test_a_click_pressed_as_another_agent_acts_is_not_lost(table, browser):
    """The table redraws every page when any agent acts (and each second of the discussion); a
    click whose press and release land on different nodes is never fired, so a redraw between
    them lost the tap. The page now draws the news once the button is up, and the click counts."""
    phones = Phones(browser, table, seats=(0,))
    try:
        moon = phones.pages[0]
        moon.wait_for_selector("text=K7QM")
        moon.evaluate("window.arrived = 0; events.addEventListener('message', () => { window.arrived += 1; })")
        moon.locator('form[data-form="send"] label.chip', has_text="Nebbia (seat 4)").hover()
        moon.mouse.down()
        table.apply(parse_codex_action("send 4 0 position"))  # Nebbia's message reaches Moon mid-click
        wait_for(lambda: moon.evaluate("window.arrived") == 1, "the news to reach the page")
        moon.mouse.up()
        wait_for(lambda: moon.evaluate("shown.view.public.acted") == [4], "the news drawn once the button is up")
        assert moon.locator('form[data-form="send"] label.chip.picked').all_inner_texts() == ["Nebbia (seat 4)"]
    finally:
        phones.close()
