"""Codex: the table as the Master, one rule per case.

A position is a setup line plus action texts (as the grid games use a key and moves). The fixed
setup puts red on seats 0-2 and blue on seats 3-5, the Leader first, the fragments in position
order, so red's code is AAAA-BBBB-CCCC and blue's DDDD-EEEE-FFFF; the two other roles in play
are chosen per test. At the end, hypothesis plays random games and checks that no view says
more than its agent may know.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_table.engine import GameOver, GameRecord, InvalidAction, InvalidRules, RuleError, Undo
from pi_table.engine.codex import STEPS, Codex, CodexState, replay
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
from pi_table.engine.codex_setup import (
    CODENAMES,
    FRAGMENT_CHARACTERS,
    Fact,
    Faction,
    InvalidSetup,
    Role,
    deal_setup,
    parse_setup,
)

from helpers_games import choose, games, scrambled

RED_CODE, BLUE_CODE = "AAAA-BBBB-CCCC", "DDDD-EEEE-FFFF"


def setup_text(second: str, third: str) -> str:
    return (
        f"Moon:red:leader:1:AAAA Aleman:red:{second}:2:BBBB Viper:red:{third}:3:CCCC "
        f"Falco:blue:leader:1:DDDD Nebbia:blue:{second}:2:EEEE Orso:blue:{third}:3:FFFF"
    )


def send_all(fact: str = "position") -> list[str]:
    """Every seat sends to the next one."""
    return [f"send {seat} {(seat + 1) % 6} {fact}" for seat in range(6)]


def done_all() -> list[str]:
    return [f"done {seat}" for seat in range(6)]


def ballots(*pairs: tuple[int, int]) -> list[str]:
    """Votes as (voter, target) pairs, in the order the table accepts them."""
    return [f"vote {voter} {target}" for voter, target in pairs]


def all_vote_for(target: int, other: int) -> list[str]:
    """Everyone votes for ``target``; ``target`` itself votes for ``other``."""
    return ballots(*((seat, other if seat == target else target) for seat in range(6)))


TO_VOTE = [*send_all(), *done_all(), "end-discussion"]


@dataclass(frozen=True)
class Table:
    game: Codex
    state: CodexState

    def then(self, *texts: str) -> Table:
        state = self.state
        for text in texts:
            state = self.game.apply(state, parse_codex_action(text))
        return Table(self.game, state)

    def view(self, seat: int) -> dict:
        return self.game.agent_view(self.state, seat).to_json()

    @property
    def public(self) -> dict:
        return self.game.public_view(self.state).to_json()

    def next_phase(self, private=(), votes=None, reveal: str | None = None) -> Table:
        """One whole phase: ring messages, ``private`` actions, everyone done, the vote, the reveal."""
        table = self.then(*send_all(), *private, *done_all(), "end-discussion", *(votes or all_vote_for(1, 0)))
        if table.state.step == "truth":
            seat = table.state.truth
            fact = reveal or next(f.value for f in (Fact.ROLE, Fact.POSITION, Fact.FACTION, Fact.FRAGMENT)
                                  if f not in table.state.revealed(seat))
            table = table.then(f"reveal {seat} {fact}")
        return table

    def refuses(self, text: str, message: str, error: type[Exception] = RuleError) -> None:
        with pytest.raises(error, match=re.escape(message)):
            self.then(text)


def play(roles=("hacker", "inquisitore"), texts=()) -> Table:
    game = Codex()
    return Table(game, game.start(game.parse_setup(setup_text(*roles)))).then(*texts)


# --- setup ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(300))
def test_every_deal_keeps_the_rulebook_invariants(seed):
    setup = Codex().deal(random.Random(seed))
    roles = setup.roles
    assert len(roles) == 3 and Role.LEADER in roles
    for faction in Faction:
        members = [agent for agent in setup.agents if agent.faction is faction]
        assert sorted(agent.role for agent in members) == sorted(roles)
        assert sorted(agent.position for agent in members) == [1, 2, 3]
        assert setup.code(faction) == "-".join(a.fragment for a in sorted(members, key=lambda a: a.position))
    fragments = [agent.fragment for agent in setup.agents]
    assert len(set(fragments)) == 6
    assert all(len(f) == 4 and set(f) <= FRAGMENT_CHARACTERS for f in fragments)
    assert len(set(setup.codenames)) == 6 and set(setup.codenames) <= set(CODENAMES)
    for agent in setup.agents:
        if agent.role is Role.INFILTRATO:
            assert agent.shown_faction is agent.faction.other
            assert agent.fragment in setup.code(agent.faction)  # the fragment of the faction it belongs to
            assert agent.fragment not in setup.code(agent.shown_faction)
        else:
            assert agent.shown_faction is agent.faction
    assert parse_setup(str(setup)) == setup


def test_a_seed_deals_one_game_and_every_role_comes_up():
    assert Codex().deal(random.Random(7)) == Codex().deal(random.Random(7))
    assert Codex().deal(random.Random(7)) != Codex().deal(random.Random(8))
    seen = {role for seed in range(100) for role in Codex().deal(random.Random(seed)).roles}
    assert seen == set(Role)


def test_the_rules_may_force_the_roles_in_play():
    rules = CodexRules(roles=("profiler", "leader", "hacker"))
    assert rules.roles == (Role.HACKER, Role.LEADER, Role.PROFILER)
    game = Codex(rules)
    assert all(game.deal(random.Random(seed)).roles == rules.roles for seed in range(20))
    assert CodexRules.from_json(rules.to_json()) == rules
    assert rules.to_json() == {"game": "codex", "roles": ["hacker", "leader", "profiler"]}
    assert rules.game == "codex" and CodexRules().to_json() == {"game": "codex", "roles": None}
    with pytest.raises(InvalidSetup, match="the rules put hacker, leader, profiler in play; this setup has"):
        game.start(parse_setup(setup_text("inquisitore", "informatore")))


def test_deal_setup_with_forced_roles_matches_the_game_deal():
    rules = CodexRules(roles=("leader", "inquisitore", "infiltrato"))
    assert Codex(rules).deal(random.Random(3)) == deal_setup(random.Random(3), rules.roles)


@pytest.mark.parametrize(
    "roles, problem",
    [
        (("hacker", "profiler", "informatore"), "three different roles, the Leader among them"),
        (("leader", "hacker"), "three different roles, the Leader among them"),
        (("leader", "hacker", "hacker"), "three different roles, the Leader among them"),
        (("leader", "hacker", "spy"),
         "a role is one of hacker, infiltrato, informatore, inquisitore, leader, profiler, not 'spy'"),
    ],
)
def test_forced_roles_must_be_three_with_the_leader(roles, problem):
    with pytest.raises(InvalidRules, match=re.escape(problem)):
        CodexRules(roles=roles)


def test_rules_from_json_refuse_unknown_options():
    with pytest.raises(InvalidRules, match="unknown Codex rule option"):
        CodexRules.from_json({"roles": None, "timer": 60})
    with pytest.raises(InvalidRules, match="these are rules for 'alias24'"):
        CodexRules.from_json({"game": "alias24"})


GOOD = setup_text("hacker", "profiler")


@pytest.mark.parametrize(
    "text, problem",
    [
        (GOOD.rsplit(" ", 1)[0], "a setup is 6 words, one per seat"),
        (GOOD.replace("AAAA", "AAA"), "seat 0: a code fragment is 4 capital letters or digits, not 'AAA'"),
        (GOOD.replace("AAAA", "A-A!"), "seat 0: a code fragment is 4 capital letters or digits"),
        (GOOD.replace("BBBB", "AAAA"), "each agent has its own fragment: AAAA is dealt twice"),
        (GOOD.replace("Aleman", "Moon"), "each agent has its own codename: Moon is dealt twice"),
        (GOOD.replace("red:hacker", "red:leader"), "red's roles must be three different roles"),
        (GOOD.replace("blue:hacker", "blue:informatore"), "their roles differ"),
        (GOOD.replace("red:hacker:2", "red:hacker:1"), "red's fragments must take the positions 1, 2 and 3"),
        (GOOD.replace("red:hacker:2", "red:hacker:4"), "seat 1: a fragment's position is 1, 2 or 3, not 4"),
        (GOOD.replace("Aleman:red", "Aleman:green"), "seat 1: a faction is one of red, blue, not 'green'"),
        (GOOD.replace("Aleman:red", "Aleman:blue"), "each faction has 3 agents; red has 2"),
        (GOOD.replace("Aleman:red:hacker:2:BBBB", "Aleman:red:hacker:2"), "seat 1: 'Aleman:red:hacker:2' is not"),
    ],
)
def test_a_broken_setup_is_refused(text, problem):
    with pytest.raises(InvalidSetup, match=re.escape(problem)):
        parse_setup(text)


def test_the_setup_line_reads_back_and_the_codes_follow_the_positions():
    setup = parse_setup(setup_text("infiltrato", "hacker"))
    assert str(setup) == setup_text("infiltrato", "hacker")
    assert setup.code(Faction.RED) == RED_CODE and setup.code(Faction.BLUE) == BLUE_CODE
    assert setup.roles == (Role.HACKER, Role.INFILTRATO, Role.LEADER)


def test_the_start_public_view():
    table = play(("hacker", "inquisitore"))
    assert table.public == {
        "game": "codex", "phase": 1, "step": "messages",
        "codenames": ["Moon", "Aleman", "Viper", "Falco", "Nebbia", "Orso"],
        "roles": ["hacker", "inquisitore", "leader"],
        "acted": [], "waiting_for": [0, 1, 2, 3, 4, 5], "truth": None, "ballots": [], "votes": [], "revelations": [],
        "revealed": [[], [], [], [], [], []], "winner": None, "winning_seat": None, "reason": None, "identikits": None,
        "termination": None,
    }
    assert table.view(1)["identikit"] == {
        "codename": "Aleman", "faction": "red", "role": "hacker", "position": 2, "fragment": "BBBB",
        "true_faction": "red",
    }


# --- action texts -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, action, canonical",
    [
        ("send 0 3 position", Send(0, 3, (Fact.POSITION,)), None),
        ("send 1 2 position role", Send(1, 2, (Fact.ROLE, Fact.POSITION)), "send 1 2 role position"),
        ("code 2 AAAA-BBBB-CCCC", EnterCode(2, RED_CODE), None),
        ("code 2 aaaabbbbcccc", EnterCode(2, RED_CODE), "code 2 AAAA-BBBB-CCCC"),
        ("block 1 3", Block(1, 3), None),
        ("profile 4 2 codename", Profile(4, 2, Fact.CODENAME), None),
        ("done 5", Done(5), None),
        ("end-discussion", EndDiscussion(), None),
        ("vote 0 4", Vote(0, 4), None),
        ("vote 2 4 extort fragment", Vote(2, 4, Fact.FRAGMENT), None),
        ("VOTE 2 4 EXTORT Role", Vote(2, 4, Fact.ROLE), "vote 2 4 extort role"),
        ("reveal 3 faction", Reveal(3, Fact.FACTION), None),
    ],
)
def test_action_texts_parse_and_print_back(text, action, canonical):
    assert parse_codex_action(text) == action
    assert str(action) == (canonical or text)
    assert parse_codex_action(str(action)) == action


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "an empty line is not an action"),
        ("touch 3", "Codex's commands are send, code, block, profile, done, end-discussion, vote, reveal, not 'touch'"),
        ("send 0 1", "'send' is written send SEAT TO FACT [FACT]"),
        ("send 0 6 role", "the recipient must be one of the seats in play, numbered 0 to 5 (one an agent), not 6"),
        ("send 0 1 role role", "one fact, or two different ones from an Informatore"),
        ("send 0 1 colour", "a fact is one of codename, faction, role, position, fragment, not 'colour'"),
        ("code 0 AAAA-BBBB", "a code is three fragments of 4 letters or digits"),
        ("code 0 AAAA-BBBB-CC!C", "a code is three fragments of 4 letters or digits"),
        ("vote 0 1 bribe role", "'vote' is written vote SEAT TARGET [extort FACT]"),
        ("vote x 1", "the seat must be a whole number, not 'x'"),
        ("profile 1 0 role", "a message is named by its inbox number, 1 or more, not 0"),
        ("done", "'done' is written done SEAT"),
        ("end-discussion 3", "'end-discussion' is written end-discussion"),
    ],
)
def test_malformed_action_texts_are_refused(text, problem):
    with pytest.raises(InvalidAction, match=re.escape(problem)):
        parse_codex_action(text)


# --- messages -------------------------------------------------------------------------------------------


def test_messages_are_delivered_together_and_without_their_sender():
    table = play(texts=send_all()[:5])
    assert table.view(1)["inbox"] == []  # seat 0 has sent to seat 1, but the table holds it
    assert table.public["acted"] == [0, 1, 2, 3, 4] and table.public["waiting_for"] == [5]
    table = table.then(send_all()[5])
    assert table.public["step"] == "private"
    assert table.view(1)["inbox"] == [
        {"number": 1, "phase": 1, "fragment": "AAAA", "facts": {"position": 1}, "text": "AAAA - position 1",
         "profiled": None}
    ]
    assert table.view(0)["sent"] == [{"phase": 1, "to": 1, "facts": {"position": 1}, "text": "AAAA - position 1"}]


def test_an_inbox_is_sorted_by_text_so_the_sending_order_tells_nothing():
    to_seat_0 = ["send 4 0 role", "send 2 0 role", "send 3 0 position"]
    rest = ["send 0 1 role", "send 1 3 role", "send 5 1 role"]
    one = play(texts=[*to_seat_0, *rest])
    other = play(texts=[*rest, *reversed(to_seat_0)])
    assert one.view(0)["inbox"] == other.view(0)["inbox"]
    assert [m["text"] for m in one.view(0)["inbox"]] == [
        "CCCC - role inquisitore", "DDDD - position 1", "EEEE - role hacker",
    ]


@pytest.mark.parametrize(
    "texts, action, problem",
    [
        (["send 0 1 role"], "send 0 2 role", "Moon (seat 0) has already sent its message this phase"),
        ([], "send 0 0 role", "an agent sends its message to another agent, not to itself"),
        ([], "send 0 1 fragment", "the fragment goes with every message"),
        ([], "send 0 1 role position", "Moon (seat 0) is not an Informatore: one fact goes with the fragment"),
        ([], "done 0",
         "an agent ends its private turn only in the private step: the agents are sending their messages"),
        ([], "vote 0 1", "agents vote only in the vote step"),
        (send_all(), "send 0 1 role",
         "messages are sent only in the messages step: the agents are in their private turn"),
    ],
)
def test_message_refusals(texts, action, problem):
    play(texts=texts).refuses(action, problem)


def test_the_informatore_sends_two_facts_one_of_them_its_role():
    table = play(("informatore", "hacker"))
    table.refuses("send 1 2 position codename", "an Informatore sending two facts must make its role one of them")
    others = [f"send {seat} {(seat + 1) % 6} role" for seat in (0, 2, 3, 5)]
    table = table.then("send 1 2 position role", "send 4 3 faction", *others)
    assert table.view(2)["inbox"][0]["facts"] == {"role": "informatore", "position": 2}
    assert table.view(2)["inbox"][0]["text"] == "BBBB - role informatore, position 2"
    from_seat_4 = [m for m in table.view(3)["inbox"] if m["fragment"] == "EEEE"]
    assert from_seat_4[0]["facts"] == {"faction": "blue"}  # one fact is allowed too


# --- the Infiltrato ------------------------------------------------------------------------------------


def test_the_infiltrato_shows_the_other_faction_in_every_fact_it_gives():
    table = play(("infiltrato", "hacker"))
    assert table.view(1)["identikit"] == {
        "codename": "Aleman", "faction": "blue", "role": "infiltrato", "position": 2, "fragment": "BBBB",
        "true_faction": "red",
    }
    table = table.then(
        "send 1 2 faction", "send 4 2 faction", "send 0 1 role", "send 2 3 role", "send 3 4 role", "send 5 0 role"
    )
    assert [m["text"] for m in table.view(2)["inbox"]] == ["BBBB - faction blue", "EEEE - faction red"]
    table = table.then(*done_all(), "end-discussion", *all_vote_for(1, 0), "reveal 1 faction")
    assert table.public["revelations"] == [{"phase": 1, "seat": 1, "fact": "faction", "value": "blue"}]


@pytest.mark.parametrize(
    "seat, code, winner",
    [(1, RED_CODE, "red"), (4, BLUE_CODE, "blue")],
    ids=["red's infiltrato, shown blue, wins for red", "blue's infiltrato, shown red, wins for blue"],
)
def test_the_infiltrato_wins_with_the_faction_it_belongs_to(seat, code, winner):
    table = play(("infiltrato", "hacker"), [*send_all(), f"code {seat} {code}", *done_all()])
    assert table.public["winner"] == winner and table.public["winning_seat"] == seat
    assert table.game.returns(table.state) == ((1, 1, 1, -1, -1, -1) if winner == "red" else (-1, -1, -1, 1, 1, 1))


def test_the_infiltrato_entering_its_shown_factions_code_is_wrong():
    table = play(("infiltrato", "hacker"), [*send_all(), f"code 1 {BLUE_CODE}", *done_all()])
    assert table.public["step"] == "discussion"
    assert table.view(1)["attempts"] == [{"phase": 1, "code": BLUE_CODE, "result": "wrong"}]


# --- code attempts -------------------------------------------------------------------------------------


def test_the_right_code_wins_for_its_faction_once_the_private_step_ends():
    table = play(texts=[*send_all(), f"code 2 {RED_CODE}", *done_all()[:5]])
    assert table.view(2)["attempts"] == [{"phase": 1, "code": RED_CODE, "result": "pending"}]
    assert table.public["winner"] is None  # codes are sealed until every agent is done
    table = table.then("done 5")
    public = table.public
    assert (public["step"], public["winner"], public["winning_seat"]) == ("over", "red", 2)
    assert public["reason"] == "Viper (seat 2) entered red's code: red wins"
    assert [agent["fragment"] for agent in public["identikits"]] == ["AAAA", "BBBB", "CCCC", "DDDD", "EEEE", "FFFF"]
    assert table.game.returns(table.state) == (1, 1, 1, -1, -1, -1)
    assert table.game.legal_actions(table.state) == []
    for text in ["send 0 1 role", "code 0 AAAA-BBBB-CCCC", "done 0", "end-discussion", "vote 0 1", "reveal 0 role"]:
        table.refuses(text, "the game is over (Viper (seat 2) entered red's code: red wins)", GameOver)


@pytest.mark.parametrize(
    "code", ["BBBB-AAAA-CCCC", "CCCC-BBBB-AAAA", "AAAA-BBBB-CCCD", BLUE_CODE],
    ids=["two swapped", "reversed", "one character off", "the other faction's code"],
)
def test_a_wrong_or_misordered_code_ends_a_non_leaders_chances(code):
    table = play(texts=[*send_all(), f"code 2 {code}", *done_all()])
    assert table.public["step"] == "discussion"
    assert table.view(2)["attempts"][0]["result"] == "wrong"
    table = table.then("end-discussion", *all_vote_for(1, 0), "reveal 1 role", *send_all())
    assert table.view(2)["may_enter_code"] is False
    table.refuses(f"code 2 {RED_CODE}", "Viper (seat 2)'s code was wrong in phase 1: only the Leader may try again")


def test_the_leader_may_try_once_in_every_phase():
    table = play(texts=[*send_all(), "code 0 AAAA-CCCC-BBBB"])
    table.refuses(f"code 0 {RED_CODE}", "Moon (seat 0) has already entered a code this phase")
    table = table.then(*done_all(), "end-discussion", *all_vote_for(1, 0), "reveal 1 role", *send_all())
    assert table.view(0)["may_enter_code"] is True
    table = table.then(f"code 0 {RED_CODE}", *done_all())
    assert table.public["winner"] == "red"
    assert [a["result"] for a in table.view(0)["attempts"]] == ["wrong", "right"]


def test_a_non_leader_has_one_attempt_even_within_the_phase():
    table = play(texts=[*send_all(), "code 5 DDDD-FFFF-EEEE"])
    table.refuses(f"code 5 {BLUE_CODE}", "Orso (seat 5) has already entered a code this phase: one attempt per game")


@pytest.mark.parametrize(
    "first, second, winner",
    [(f"code 3 {BLUE_CODE}", f"code 0 {RED_CODE}", "blue"), (f"code 0 {RED_CODE}", f"code 3 {BLUE_CODE}", "red")],
    ids=["blue entered first", "red entered first"],
)
def test_two_right_codes_in_one_phase_the_first_entered_wins(first, second, winner):
    table = play(texts=[*send_all(), first, second, *done_all()])
    assert table.public["winner"] == winner


def test_no_code_after_the_private_turn_is_done():
    table = play(texts=[*send_all(), "done 0"])
    assert table.view(0)["may_enter_code"] is False
    table.refuses(f"code 0 {RED_CODE}", "Moon (seat 0) has already ended its private turn this phase")
    table.refuses("done 0", "Moon (seat 0) has already ended its private turn this phase")


# --- the Hacker ---------------------------------------------------------------------------------------


def test_a_blocked_agent_is_told_when_the_private_step_ends_for_everyone_not_when_the_hacker_acts():
    """Told at the Hacker's action, the moment would point at the Hacker (whoever was busy on
    their phone just then); told when the sixth agent is done, it points at nobody."""
    before = play(texts=[*send_all(), "done 0"])
    blocked = before.then("block 1 3")
    assert blocked.view(3) == before.view(3) and blocked.view(3)["may_enter_code"] is True
    assert blocked.game.legal_actions(blocked.state, 3) == before.game.legal_actions(before.state, 3)
    assert blocked.public == before.public  # a block is private
    assert blocked.view(1)["powers"] == {"hacker": {"blocks": [{"phase": 1, "target": 3}], "may_not_block": None}}
    entered = blocked.then(f"code 3 {BLUE_CODE}")  # taken and sealed like any code: a refusal would tell
    assert entered.view(3)["attempts"] == [{"phase": 1, "code": BLUE_CODE, "result": "pending"}]
    almost = entered.then("done 1", "done 2", "done 3", "done 4")
    assert almost.view(3)["blocked_in"] == []
    ended = almost.then("done 5")
    assert ended.view(3)["blocked_in"] == [1] and ended.view(3)["may_enter_code"] is False
    assert ended.view(3)["attempts"] == [{"phase": 1, "code": BLUE_CODE, "result": "blocked"}]
    assert (ended.public["step"], ended.public["winner"]) == ("discussion", None)  # the right code, void


def test_a_block_voids_a_code_entered_earlier_in_the_step_and_the_try_is_not_spent():
    table = play(texts=[*send_all(), f"code 5 {BLUE_CODE}", "block 1 5", *done_all()])
    assert table.public["step"] == "discussion" and table.public["winner"] is None
    assert table.view(5)["attempts"] == [{"phase": 1, "code": BLUE_CODE, "result": "blocked"}]
    assert table.view(5)["blocked_in"] == [1]
    table = table.then("end-discussion", *all_vote_for(1, 0), "reveal 1 role", *send_all())
    table = table.then(f"code 5 {BLUE_CODE}", *done_all())
    assert table.public["winner"] == "blue"


def test_the_hacker_never_blocks_the_same_agent_two_phases_in_a_row():
    table = play().next_phase(private=["block 1 3"]).then(*send_all())
    assert table.view(1)["powers"]["hacker"]["may_not_block"] == 3
    assert Block(1, 3) not in table.game.legal_actions(table.state, 1)
    table.refuses(
        "block 1 3", "a Hacker never blocks the same agent two phases in a row: Falco (seat 3) was blocked last phase"
    )
    table = table.then("block 4 3", "block 1 5")  # the other Hacker has its own memory; another target is fine
    table = table.then(*done_all(), "end-discussion", *all_vote_for(1, 0), "reveal 1 position")
    table = table.then(*send_all(), "block 1 3")
    assert table.view(3)["blocked_in"] == [1, 2]  # phase 3's block is told when its private step ends
    assert table.then(*done_all()).view(3)["blocked_in"] == [1, 2, 3]


def test_after_a_phase_without_a_block_the_old_target_is_allowed_again():
    table = play().next_phase(private=["block 1 3"]).next_phase().then(*send_all(), "block 1 3")
    assert [b["phase"] for b in table.view(1)["powers"]["hacker"]["blocks"]] == [1, 3]


@pytest.mark.parametrize(
    "texts, action, problem",
    [
        ([], "block 0 3", "Moon (seat 0) is not a Hacker: only a Hacker blocks"),
        ([], "block 1 1", "a Hacker blocks another agent, not itself"),
        (["block 1 3"], "block 1 4", "Aleman (seat 1) has already blocked Falco (seat 3) this phase"),
        (["done 1"], "block 1 4", "Aleman (seat 1) has already ended its private turn this phase"),
    ],
)
def test_hacker_refusals(texts, action, problem):
    play(texts=[*send_all(), *texts]).refuses(action, problem)


def test_a_block_in_another_step_is_refused():
    play().refuses("block 1 3", "a Hacker blocks only in the private step: the agents are sending their messages")


# --- the Inquisitore (seats 2 and 5) -------------------------------------------------------------------


def test_the_inquisitore_extorts_the_fact_instead_of_the_agents_choice():
    votes = ballots((0, 1), (1, 0), (3, 1), (4, 1), (5, 1)) + ["vote 2 1 extort position"]
    table = play(texts=[*TO_VOTE, *votes])
    assert table.view(2)["powers"]["inquisitore"] == {
        "spent": True, "extortions": [{"phase": 1, "target": 1, "fact": "position", "outcome": "extorted"}],
    }
    # told before it chooses, as it has nothing to choose: the one reveal it may make is that fact
    assert table.view(1)["extorting"] == "position" and table.view(1)["extorted"] == []
    assert [str(a) for a in table.game.legal_actions(table.state, 1)] == ["reveal 1 position"]
    assert all(table.view(seat)["extorting"] is None for seat in (0, 2, 3, 4, 5))
    assert "extort" not in str(table.public)
    table.refuses("reveal 1 role", "an Inquisitore extorts Aleman (seat 1)'s position: the truth machine reveals that")
    table = table.then("reveal 1 position")
    assert table.public["revelations"] == [{"phase": 1, "seat": 1, "fact": "position", "value": 2}]
    assert table.view(1)["extorted"] == [{"phase": 1, "fact": "position"}] and table.view(1)["extorting"] is None
    assert "extort" not in str(table.public)


@pytest.mark.parametrize(
    "first, second, revealed",
    [((2, "fragment"), (5, "faction"), ("fragment", "BBBB")), ((5, "faction"), (2, "fragment"), ("faction", "red"))],
    ids=["seat 2 named first", "seat 5 named first"],
)
def test_two_inquisitori_on_one_agent_the_first_counts_and_the_second_keeps_its_power(first, second, revealed):
    votes = [
        f"vote {first[0]} 1 extort {first[1]}", f"vote {second[0]} 1 extort {second[1]}",
        *ballots((0, 1), (1, 0), (3, 1), (4, 1)),
    ]
    fact, value = revealed
    table = play(texts=[*TO_VOTE, *votes, f"reveal 1 {fact}"])  # the first's fact: the one reveal it may make
    assert table.public["revelations"] == [{"phase": 1, "seat": 1, "fact": fact, "value": value}]
    assert table.view(first[0])["powers"]["inquisitore"]["extortions"][0]["outcome"] == "extorted"
    kept = table.view(second[0])["powers"]["inquisitore"]
    assert kept == {"spent": False, "extortions": [{"phase": 1, "target": 1, "fact": second[1], "outcome": "kept"}]}
    # the second Inquisitore uses its power in a later phase
    rest = ((seat, 0 if seat == 1 else 1) for seat in range(6) if seat != second[0])
    votes = [f"vote {second[0]} 1 extort position", *ballots(*rest)]
    table = table.then(*TO_VOTE, *votes, "reveal 1 position")
    assert table.public["revelations"][-1] == {"phase": 2, "seat": 1, "fact": "position", "value": 2}


def test_an_extortion_on_an_agent_that_escapes_the_truth_machine_is_not_spent():
    """The book: "Se quell'Agente va alla macchina della verità, il Master rivelerà
    l'informazione scelta dall'Inquisitore ... Una volta utilizzato, questo potere si esaurisce",
    and a second Inquisitore naming the same agent "non sprecherà il proprio potere": a power
    that takes no effect is not used. So an extortion whose agent escapes is kept for later."""
    votes = ["vote 2 3 extort role", *ballots((0, 1), (1, 0), (3, 1), (4, 1), (5, 1))]
    table = play(texts=[*TO_VOTE, *votes])
    assert table.view(2)["powers"]["inquisitore"] == {
        "spent": False, "extortions": [{"phase": 1, "target": 3, "fact": "role", "outcome": "missed"}]}
    table = table.then("reveal 1 role", *TO_VOTE, "vote 2 1 extort position",
                       *ballots((0, 1), (1, 0), (3, 1), (4, 1), (5, 1)))
    assert table.view(2)["powers"]["inquisitore"]["spent"] is True
    assert table.view(1)["extorting"] == "position"
    table = table.then("reveal 1 position")
    assert table.public["revelations"][-1]["fact"] == "position"  # extorted in phase 2
    table.then(*TO_VOTE).refuses("vote 2 1 extort faction", "Viper (seat 2) used its power in phase 2: once per game")


@pytest.mark.parametrize(
    "action, problem",
    [
        ("vote 0 1 extort role", "Moon (seat 0) is not an Inquisitore: only an Inquisitore extorts"),
        ("vote 2 1 extort codename", "the truth machine never reveals the codename"),
        ("vote 2 1 extort role", "Aleman (seat 1) already revealed its role at the truth machine: extort another fact"),
    ],
)
def test_extortion_refusals(action, problem):
    play().next_phase(reveal="role").then(*TO_VOTE).refuses(action, problem)


# --- the Profiler (seats 1 and 4) ------------------------------------------------------------------------


def test_the_profiler_asks_one_more_fact_about_a_sender_once_per_game():
    table = play(("profiler", "informatore"), [*send_all(), "profile 1 1 role"])
    assert table.view(1)["inbox"][0]["profiled"] == {"role": "leader"}
    assert table.view(1)["powers"] == {
        "profiler": {"spent": True, "questions": [{"phase": 1, "message": 1, "fact": "role", "value": "leader"}]}
    }
    assert table.view(0)["inbox"][0]["profiled"] is None  # the sender is not told
    table.refuses("profile 1 1 faction", "Aleman (seat 1) asked its one question in phase 1: once per game")
    table = table.then(*done_all(), "end-discussion", *all_vote_for(2, 0), "reveal 2 role", *send_all())
    table.refuses("profile 1 2 faction", "Aleman (seat 1) asked its one question in phase 1: once per game")


@pytest.mark.parametrize(
    "texts, action, problem",
    [
        ([], "profile 0 1 role", "Moon (seat 0) is not a Profiler: only a Profiler asks about a sender"),
        ([], "profile 1 2 role", "Aleman (seat 1) has no message 2: its inbox holds 1"),
        ([], "profile 1 1 position", "message 1 already says the sender's position: ask for another fact"),
        ([], "profile 1 1 fragment", "the fragment came with the message"),
        (["done 1"], "profile 1 1 role", "Aleman (seat 1) has already ended its private turn this phase"),
    ],
)
def test_profiler_refusals(texts, action, problem):
    play(("profiler", "informatore"), [*send_all(), *texts]).refuses(action, problem)


def test_the_profiler_asks_as_a_message_arrives_not_phases_later():
    table = play(("profiler", "informatore")).next_phase(votes=all_vote_for(2, 0)).then(*send_all())
    table.refuses("profile 1 1 role", "the Profiler asks as a message arrives: message 1 came in phase 1")
    assert [a for a in table.game.legal_actions(table.state, 1) if isinstance(a, Profile)] == [
        Profile(1, 2, fact) for fact in (Fact.CODENAME, Fact.FACTION, Fact.ROLE)
    ]


def test_the_profiler_learns_an_infiltrato_senders_shown_faction():
    sends = ["send 2 1 role", "send 0 2 role", "send 1 0 role", "send 3 4 role", "send 4 5 role", "send 5 3 role"]
    table = play(("profiler", "infiltrato"), [*sends, "profile 1 1 faction"])
    assert table.view(1)["inbox"][0]["profiled"] == {"faction": "blue"}  # seat 2 is red's Infiltrato
    table = play(("profiler", "infiltrato"), [*sends, "profile 1 1 codename"])
    assert table.view(1)["inbox"][0]["profiled"] == {"codename": "Viper"}


# --- the vote and the truth machine -----------------------------------------------------------------------


def test_each_vote_is_public_as_it_is_cast():
    """The book: "pubblicamente si deve votare". Each ballot shows as it is accepted, in order
    (the order breaks ties); an Inquisitore's extortion stays its own."""
    table = play(texts=[*TO_VOTE, "vote 2 0 extort role", *ballots((0, 2), (1, 2))])
    assert table.public["ballots"] == [{"voter": 2, "target": 0}, {"voter": 0, "target": 2},
                                       {"voter": 1, "target": 2}]
    assert table.public["votes"] == [] and table.public["acted"] == [0, 1, 2]
    assert "extort" not in json.dumps(table.public)
    table = table.then(*ballots((3, 2), (4, 0), (5, 1)))
    assert table.public["ballots"] == []  # the vote closed: its ballots are in "votes"
    assert table.public["votes"][0]["ballots"][0] == {"voter": 2, "target": 0}


def test_sealed_voting_is_an_option():
    game = Codex(CodexRules(sealed_votes=True))
    state = game.start(game.parse_setup(setup_text("hacker", "inquisitore")))
    table = Table(game, state).then(*TO_VOTE, *ballots((0, 2), (1, 2), (2, 0)))
    assert table.public["ballots"] == [] and table.public["acted"] == [0, 1, 2]
    table = table.then(*ballots((3, 2), (4, 0), (5, 1)))
    assert table.public["votes"][0]["tally"] == [2, 1, 3, 0, 0, 0]


@pytest.mark.parametrize("rules", [CodexRules(), CodexRules(sealed_votes=True)])
def test_the_voting_option_is_kept_in_the_rules_text(rules):
    assert CodexRules.from_json(json.loads(json.dumps(rules.to_json()))) == rules
    assert CodexRules.from_json({"game": "codex", "roles": None}) == CodexRules()  # written before the option


def test_the_vote_closes_with_the_sixth_ballot():
    table = play(texts=[*TO_VOTE, *ballots((0, 2), (1, 2), (2, 0))])
    assert table.public["votes"] == [] and table.public["acted"] == [0, 1, 2]
    table = table.then(*ballots((3, 2), (4, 0), (5, 1)))
    assert table.public["votes"] == [{
        "phase": 1,
        "ballots": [{"voter": v, "target": t} for v, t in ((0, 2), (1, 2), (2, 0), (3, 2), (4, 0), (5, 1))],
        "tally": [2, 1, 3, 0, 0, 0],
        "chosen": 2,
    }]
    assert (table.public["step"], table.public["truth"], table.public["waiting_for"]) == ("truth", 2, [2])


TIE_CASES = [
    # (id, facts revealed beforehand by seat 1, ballots in the order accepted, who goes to the truth machine)
    ("a clear majority", 0, [(0, 1), (1, 0), (2, 1), (3, 1), (4, 2), (5, 2)], 1),
    ("a tie goes to the agent with fewer facts revealed", 1, [(0, 1), (1, 2), (2, 1), (3, 2), (4, 1), (5, 2)], 2),
    ("equal reveals: the first to get its deciding vote", 0, [(0, 1), (1, 2), (2, 1), (3, 2), (4, 2), (5, 1)], 2),
    ("the same ballots, the last two swapped", 0, [(0, 1), (1, 2), (2, 1), (3, 2), (5, 1), (4, 2)], 1),
    ("a three-way tie", 0, [(0, 1), (1, 2), (2, 3), (3, 1), (4, 2), (5, 3)], 1),
    ("a three-way tie, fewer reveals first", 1, [(0, 1), (1, 2), (2, 3), (3, 1), (4, 2), (5, 3)], 2),
    ("six ways: everyone voted once", 0, [(0, 3), (1, 5), (2, 4), (3, 1), (4, 0), (5, 2)], 3),
]


@pytest.mark.parametrize("revealed, votes, chosen", [c[1:] for c in TIE_CASES], ids=[c[0] for c in TIE_CASES])
def test_who_goes_to_the_truth_machine(revealed, votes, chosen):
    table = play()
    if revealed:
        table = table.next_phase(votes=all_vote_for(1, 0))
        assert table.public["revealed"][1] == ["role"]
    table = table.then(*TO_VOTE, *ballots(*votes))
    assert table.public["votes"][-1]["chosen"] == chosen and table.state.truth == chosen


@pytest.mark.parametrize(
    "action, problem",
    [
        ("vote 0 0", "an agent votes for another agent, not for itself"),
        ("vote 1 2", "Aleman (seat 1) has already voted this phase"),
    ],
)
def test_vote_refusals(action, problem):
    play(texts=[*TO_VOTE, "vote 1 0"]).refuses(action, problem)


def test_the_discussion_ends_only_by_the_table():
    table = play(texts=[*send_all(), *done_all()])
    assert table.public["step"] == "discussion" and table.public["waiting_for"] == []
    assert table.game.legal_actions(table.state) == [EndDiscussion()]
    table.refuses("vote 0 1", "agents vote only in the vote step: the discussion is on")
    table.then("end-discussion").refuses("end-discussion", "the discussion ends only in the discussion step")


def test_the_truth_machine_never_reveals_the_codename_nor_a_fact_twice():
    table = play(texts=[*TO_VOTE, *all_vote_for(1, 0)])
    table.refuses("reveal 2 role", "Aleman (seat 1) is at the truth machine, not Viper (seat 2)")
    table.refuses("reveal 1 codename", "the codename is public: reveal the faction, role, position or fragment")
    table = table.then("reveal 1 role", *TO_VOTE, *all_vote_for(1, 0))
    table.refuses("reveal 1 role", "Aleman (seat 1) already revealed its role here: reveal another fact")
    left = [Reveal(1, fact) for fact in (Fact.FACTION, Fact.POSITION, Fact.FRAGMENT)]
    assert table.game.legal_actions(table.state, 1) == left


def test_an_agent_with_nothing_left_to_reveal_goes_back_without_a_reveal():
    table = play()
    for fact, value in (("role", "hacker"), ("faction", "red"), ("position", 2), ("fragment", "BBBB")):
        table = table.next_phase(votes=all_vote_for(1, 0), reveal=fact)
        phase = table.state.phase - 1
        assert table.public["revelations"][-1] == {"phase": phase, "seat": 1, "fact": fact, "value": value}
    table = table.then(*TO_VOTE, *all_vote_for(1, 0))
    assert (table.public["phase"], table.public["step"]) == (6, "messages")
    assert table.public["votes"][-1]["chosen"] == 1 and len(table.public["revelations"]) == 4


# --- the journal: a game is its setup plus its action texts ------------------------------------------


def test_replay_and_the_game_record_rebuild_a_game():
    texts = [*TO_VOTE, *all_vote_for(1, 0), "reveal 1 role", *send_all(), "block 1 3"]
    game = Codex()
    setup = parse_setup(setup_text("hacker", "inquisitore"))
    state = replay(game, setup, texts)
    record = GameRecord(game, setup)
    for text in texts:
        record.apply(parse_codex_action(text))
    assert record.state == state == play(texts=texts).state
    record.apply(Undo())
    assert record.state == replay(game, setup, texts[:-1])


# --- properties over random games -------------------------------------------------------------------------

MAX_STEPS = 300
FACT_CHOICES = [(f,) for f in Fact] + [(a, b) for i, a in enumerate(Fact) for b in list(Fact)[i + 1 :]]
UNIVERSE = (
    [Send(s, t, facts) for s in range(6) for t in range(6) for facts in FACT_CHOICES]
    + [Block(s, t) for s in range(6) for t in range(6)]
    + [Profile(s, m, f) for s in range(6) for m in range(1, 8) for f in Fact]
    + [Done(s) for s in range(6)]
    + [EndDiscussion()]
    + [Vote(s, t, f) for s in range(6) for t in range(6) for f in (None, *Fact)]
    + [Reveal(s, f) for s in range(6) for f in Fact]
)




def check_views(game: Codex, state: CodexState, rng: random.Random) -> None:
    """No agent view holds another agent's private facts; the public view holds none at all."""
    public = game.public_view(state).to_json()
    assert public["step"] in STEPS
    if state.is_over:
        return
    revealed = {str(r.value) for r in state.revelations if r.fact is Fact.FRAGMENT}
    for seat in range(6):
        view = game.agent_view(state, seat)
        text = str(view.to_json())
        known = {view.identikit.fragment, *(m.fragment for m in game.inbox(state, seat)), *revealed}
        assert {a.fragment for a in state.setup.agents if a.fragment in text} <= known
        for message in view.to_json()["inbox"]:
            assert set(message) == {"number", "phase", "fragment", "facts", "text", "profiled"}
        twin = scrambled(state, seat, rng)
        assert game.agent_view(twin, seat).to_json() == view.to_json(), f"seat {seat}'s view tells what it may not know"
        if state.step == "private":  # the others' blocks of this step are told when it ends, not before
            unblocked = replace(state, blocks=tuple(b for b in state.blocks if b.phase != state.phase or b.hacker == seat))
            assert game.agent_view(unblocked, seat).to_json() == view.to_json(), f"seat {seat} learns of a block early"
            assert game.legal_actions(unblocked, seat) == game.legal_actions(state, seat)
        assert game.public_view(twin).to_json() == public


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
@settings(settings.get_profile("codex games"), suppress_health_check=[HealthCheck.too_slow])
@given(dealt=games(), actions_seed=st.integers(0, 2**32 - 1))
def test_random_games_run_to_an_end_and_no_view_leaks(dealt, actions_seed):
    """Every legal action is accepted and prints back; the views are checked at every action of
    the first phases, then at every fifth (a long game's views are slow to compare)."""
    game, setup = dealt
    state = game.start(setup)
    rng = random.Random(actions_seed)
    texts = []
    for step in range(MAX_STEPS):
        if step < 120 or step % 5 == 0 or state.is_over:
            check_views(game, state, rng)
        if state.is_over:
            break
        assert set(game.waiting_for(state)) <= set(range(6))
        action = choose(game, state, rng)
        assert parse_codex_action(str(action)) == action
        texts.append(str(action))
        state = game.apply(state, action)
    if state.is_over:
        assert game.legal_actions(state) == [] and game.waiting_for(state) == ()
        assert sorted(game.returns(state)) == [-1, -1, -1, 1, 1, 1]
        assert any(a.seat == state.winning_seat and a.result == "right" for a in state.attempts)
    else:
        assert game.legal_actions(state), "a game that is not over always waits for someone"
    assert replay(game, setup, texts) == state


@pytest.mark.slow  # some 6 s of CPU by itself: out of ./dev test (issue 40)
@settings(settings.get_profile("codex sweeps"), suppress_health_check=[HealthCheck.too_slow])
@given(dealt=games(), actions_seed=st.integers(0, 2**32 - 1))
def test_apply_accepts_exactly_the_legal_actions(dealt, actions_seed):
    """Over every action but codes: accepted if and only if listed. Codes: accepted from exactly
    the agents that may enter one, whatever the code; the listed ones are accepted."""
    game, setup = dealt
    state = game.start(setup)
    rng = random.Random(actions_seed)
    for _ in range(120):
        legal = game.legal_actions(state)
        for action in UNIVERSE:
            try:
                game.apply(state, action)
            except (RuleError, InvalidAction):
                assert action not in legal, f"{action} is listed in the {state.step} step but refused"
            else:
                assert action in legal, f"{action} is accepted in the {state.step} step but not listed"
        for seat in range(6):
            for code in ("ZZZZ-YYYY-XXXX", setup.code(Faction.RED), setup.code(Faction.BLUE)):
                try:
                    game.apply(state, EnterCode(seat, code))
                except RuleError:
                    assert not game.may_enter_code(state, seat)
                else:
                    assert game.may_enter_code(state, seat)
        for action in legal:
            if isinstance(action, EnterCode):
                game.apply(state, action)
        if state.is_over:
            for action in UNIVERSE[::50]:
                with pytest.raises(GameOver):
                    game.apply(state, action)
            break
        state = game.apply(state, choose(game, state, rng))

