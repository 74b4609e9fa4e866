"""Codex's screen as turns, without drawing: whom pass-and-play calls and when, what the agent at
the screen may choose, and what the public side offers and shows beside the seats
(tests/test_codex_screen.py draws them)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from pi_table.engine.codex import Codex
from pi_table.engine.codex_actions import EndDiscussion, Send, Vote, parse_codex_action
from pi_table.engine.codex_setup import Fact
from pi_table.engine.phrase import Phrase
from pi_table.hal import NewGame
from pi_table.ui.codex_turns import (
    PUBLIC_SIDE,
    Control,
    Offer,
    Panel,
    Stage,
    Turn,
    after_command,
    choice_path,
    controls,
    follow,
    menu,
    next_call,
    next_join,
    panel,
    public_refusal,
    releasable,
    settle,
    shown_vote,
)

SETUP = (
    "Moon:red:leader:1:AAAA Aleman:red:hacker:2:BBBB Viper:red:inquisitore:3:CCCC "
    "Falco:blue:leader:1:DDDD Nebbia:blue:hacker:2:EEEE Orso:blue:inquisitore:3:FFFF"
)
SEND_ALL = tuple(f"send {seat} {(seat + 1) % 6} position" for seat in range(6))
DONE_ALL = tuple(f"done {seat}" for seat in range(6))
TO_VOTE = SEND_ALL + DONE_ALL + ("end-discussion",)
VOTES = tuple(f"vote {seat} {0 if seat == 1 else 1}" for seat in range(6))  # all for seat 1, seat 1 for seat 0
WON = SEND_ALL + ("code 0 AAAA-BBBB-CCCC",) + DONE_ALL
LINKS = tuple(f"http://192.0.2.7:8080/p/seat-{seat}" for seat in range(6))
game = Codex()


def state(actions=()):
    s = game.start(game.parse_setup(SETUP))
    for text in actions:
        s = game.apply(s, parse_codex_action(text))
    return s


def view(actions=()):
    return game.public_view(state(actions))


def at_screen(seat, actions=(), choice=()):
    s = state(actions)
    return Turn(Stage.AGENT, seat, (s.phase, s.step), choice), game.legal_actions(s, seat)


def test_the_turns_draw_nothing():
    """The turns are tested and used without a display: importing them brings no pygame in."""
    done = subprocess.run([sys.executable, "-c", "import sys, pi_table.ui.codex_turns; print('pygame' in sys.modules)"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_choice_paths_follow_the_text_forms():
    assert choice_path(parse_codex_action("send 0 3 role position")) == ("send", "3", "role position")
    assert choice_path(parse_codex_action("code 1 AAAA-BBBB-CCCC")) == ("code", "AAAA", "BBBB", "CCCC")
    assert choice_path(parse_codex_action("vote 2 1 extort role")) == ("vote", "1", "extort role")
    assert choice_path(parse_codex_action("vote 2 1")) == ("vote", "1")
    assert choice_path(parse_codex_action("profile 2 1 faction")) == ("profile", "1", "faction")
    assert choice_path(parse_codex_action("done 4")) == ("done",)


# --- pass-and-play's calls -------------------------------------------------------------------------


def test_the_next_call_goes_round_the_table_and_waits_when_nobody_has_to_act():
    assert next_call(view()) == Turn(Stage.PASS, 0)
    assert next_call(view(SEND_ALL[:2]), 1) == Turn(Stage.PASS, 2)
    assert next_call(view(SEND_ALL[:2] + SEND_ALL[3:]), 4) == Turn(Stage.PASS, 2)  # round past seat 5
    assert next_call(view(SEND_ALL + DONE_ALL)) == Turn(Stage.WAIT)  # the discussion


def test_following_the_game_hides_an_agent_whose_step_is_over_and_passes_over_one_that_acted():
    agent, _ = at_screen(0)
    assert follow(agent, view()) == agent
    assert follow(agent, view(SEND_ALL[:1])) == Turn(Stage.HIDDEN, 0)  # it sent its message
    assert follow(replace(agent, scene=(1, "private")), view()) == Turn(Stage.HIDDEN, 0)
    assert follow(Turn(Stage.PASS, 0), view(SEND_ALL[:1])) == Turn(Stage.PASS, 1)  # from its phone
    assert follow(Turn(Stage.WAIT), view(SEND_ALL + DONE_ALL)) == Turn(Stage.WAIT)
    assert follow(Turn(Stage.WAIT), view(TO_VOTE)) == Turn(Stage.PASS, 0)  # the vote needs the agents
    assert follow(Turn(Stage.HIDDEN, 3), view(TO_VOTE)) == Turn(Stage.HIDDEN, 3)  # till NEXT AGENT
    assert follow(Turn(Stage.PASS, 2, releasing=4), view(SEND_ALL[:2])).releasing == 4
    assert follow(Turn(releasing=4), view(WON)) == PUBLIC_SIDE


def test_a_stage_that_names_no_seat_has_no_agent():
    with pytest.raises(ValueError, match="wait stage names no seat"):
        _ = Turn(Stage.WAIT).agent


def test_a_command_sent_answers_a_release_and_starts_the_agents_choice_afresh():
    assert after_command(Turn(Stage.PASS, 2, releasing=4)) == Turn(Stage.PASS, 2)
    agent, _ = at_screen(0, choice=("send", "3"))
    assert after_command(agent) == at_screen(0)[0]
    assert after_command(Turn(Stage.HIDDEN, 1, choice=("send",))).choice == ("send",)


# --- what the public side offers ---------------------------------------------------------------------


def test_the_public_sides_buttons_at_each_stage():
    messages, discussion, over = view(), view(SEND_ALL + DONE_ALL), view(WON)
    assert controls(messages, PUBLIC_SIDE) == [Offer(Control.PASS_AND_PLAY, turn=Turn(Stage.PASS, 0))]
    assert controls(messages, Turn(Stage.PASS, 0)) == [
        Offer(Control.I_AM, turn=Turn(Stage.AGENT, 0, (1, "messages"))), Offer(Control.STOP, turn=PUBLIC_SIDE)]
    assert controls(view(SEND_ALL[:1]), Turn(Stage.HIDDEN, 0)) == [
        Offer(Control.NEXT_AGENT, turn=Turn(Stage.PASS, 1)), Offer(Control.STOP, turn=PUBLIC_SIDE)]
    assert controls(discussion, Turn(Stage.WAIT)) == [
        Offer(Control.STOP, turn=PUBLIC_SIDE), Offer(Control.VOTE_NOW, EndDiscussion())]
    assert controls(discussion, PUBLIC_SIDE) == [
        Offer(Control.PASS_AND_PLAY, turn=Turn(Stage.WAIT)), Offer(Control.VOTE_NOW, EndDiscussion())]
    assert controls(over, Turn(Stage.WAIT)) == [Offer(Control.NEW_GAME, NewGame())]
    # the last agent's turn hidden as the game ended: nobody is left to call
    assert controls(over, Turn(Stage.HIDDEN, 5)) == controls(over, Turn(Stage.PASS, 2)) == [Offer(Control.NEW_GAME, NewGame())]


def test_beside_the_seats_a_release_first_then_the_call_then_each_join_code_in_turn():
    joins = (None, None, *LINKS[2:])
    assert releasable(view(), joins) and not releasable(view(), ()) and not releasable(view(WON), joins)
    assert next_join(joins) == (2, LINKS[2]) and next_join((None,) * 6) is None
    assert panel(view(), Turn(releasing=2), joins) is Panel.RELEASE
    assert panel(view(), Turn(releasing=2), ()) is Panel.TRUTH_MACHINE  # no phones' pages: nothing to release
    assert panel(view(), Turn(Stage.PASS, 0), joins) is Panel.CALL
    assert panel(view(), Turn(Stage.HIDDEN, 0), joins) is Panel.CALL
    assert panel(view(), PUBLIC_SIDE, joins) is Panel.JOIN
    assert panel(view(), Turn(Stage.WAIT), joins) is Panel.JOIN
    assert panel(view(), PUBLIC_SIDE, (None,) * 6) is Panel.TRUTH_MACHINE
    assert panel(view(WON), PUBLIC_SIDE, joins) is Panel.CODE  # the game over: the winning code, under its heading
    assert panel(view(WON), Turn(Stage.HIDDEN, 5), joins) is Panel.CODE  # and nobody is called


def test_the_last_vote_shows_until_the_next_vote_begins():
    assert shown_vote(view(TO_VOTE)) is None
    closed = view(TO_VOTE + VOTES)
    assert shown_vote(closed) == closed.votes[-1] and closed.votes[-1].tally[1] == 5


def test_only_a_refusal_that_tells_no_secret_is_public():
    public = Phrase.of("{agent} has already voted this phase", agent="Moon")
    assert public_refusal(public) == public
    assert public_refusal(Phrase.of("{agent} has already entered a code this phase", agent="Moon")) is None
    assert public_refusal("the table's own words") is None and public_refusal(None) is None


# --- the agent's menu -----------------------------------------------------------------------------------


def test_the_only_verb_of_the_step_is_chosen_for_the_agent_and_back_goes_up_one_choice():
    agent, actions = at_screen(0)
    top = menu(agent, actions)
    assert top.choice == ("send",) and top.back is None  # sending is all a seat may do now
    assert [option.word for option in top.options] == ["1", "2", "3", "4", "5"]  # never to itself
    assert all(option.action is None for option in top.options)
    to_falco = menu(top.opens(top.options[2]), actions)
    assert to_falco.choice == ("send", "3") and to_falco.back == replace(agent, choice=("send",))
    facts = {option.word: option.action for option in to_falco.options}
    assert facts["role"] == Send(0, 3, (Fact.ROLE,))
    assert to_falco.hide == Turn(Stage.HIDDEN, 0)


def test_an_inquisitores_vote_offers_no_extortion_first():
    agent, actions = at_screen(2, TO_VOTE, ("vote", "1"))
    options = menu(agent, actions).options
    assert options[0].word == "" and options[0].action == Vote(2, 1, None)
    assert {option.action for option in options[1:]} == {Vote(2, 1, fact) for fact in Fact if fact is not Fact.CODENAME}


def test_a_choice_that_leads_nowhere_now_goes_back_to_the_top():
    agent, actions = at_screen(1, SEND_ALL)  # the private step: a Hacker may block, or end its turn
    assert settle(actions, ("send", "3")) == ()
    top = menu(replace(agent, choice=("send", "3")), actions)
    assert top.choice == () and top.back is None
    assert {option.word for option in top.options} >= {"done", "block"}
