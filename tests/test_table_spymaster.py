"""Codenames with the table as spymaster (issue 79, part 3): the cooperative rules with the table's
clue (``told WORD N``, journalled, undone, resumed), never without the cards' words, and offered
in a language only where the clues' last measured figures pass their gate."""

from __future__ import annotations

import json
import random

import pytest

from pi_table.clues import gate
from pi_table.clues import table as clues_table
from pi_table.clues.giver import Board, Clue
from pi_table.engine import GameOver, InvalidAction, RuleError, Rules, Undo, make_game, parse_action
from pi_table.engine.actions import Told, Words
from pi_table.engine.endings import Termination
from pi_table.engine.games import described
from pi_table.engine.keys import Team
from pi_table.engine.record import GameRecord
from pi_table.hal import NewGame
from pi_table.sim.harness import SimTable
from pi_table.sim.terminal import Painter, interactive
from pi_table.sim.terminals import terminal
from pi_table.table import Session
from pi_table.table.input import HOLD_MIN_S, InputSettings
from pi_table.ui.i18n import say
from pi_table.web.staff_words import games_offered

GAME = "codenames-table"
RULES = Rules(game=GAME)
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red starts: cells 0-8 red, 9-16 blue, 17-23 bystanders, 24 the assassin
WORDS = tuple(f"card{n}" for n in range(25))
CONFIRMED = "words " + " ".join(WORDS)
QUICK = InputSettings(hold_s=HOLD_MIN_S, stuck_s=5)


class StandIn:
    """A clue-giver standing in for the model: two of the team's hidden agents a clue (one when one
    is left), a word no card has; the boards it was asked about kept."""

    def __init__(self) -> None:
        self.asked: list[Board] = []

    def __call__(self, board: Board) -> Clue:
        self.asked.append(board)
        own = board.hidden(board.team)
        return Clue(f"hint{len(self.asked)}", min(2, len(own)), tuple(own[:2]))


@pytest.fixture
def passing(tmp_path, monkeypatch):
    """Figures that pass the gate in both languages, in a file of the committed one's form."""
    figures = {"win_rate": 0.6, "assassin_rate": 0.05, "cards_per_clue": 1.6, "top1": 0.8}
    path = tmp_path / "figures.json"
    path.write_text(json.dumps({"measured_by": "a test", "languages": {"en": figures, "it": figures}}))
    monkeypatch.setattr(gate, "FIGURES", path)
    giver = StandIn()
    monkeypatch.setattr(clues_table, "table_giver", lambda: giver)
    return giver


def record() -> GameRecord:
    game = make_game(RULES)
    return GameRecord(game, game.parse_key(KEY))


def test_the_table_as_spymaster_is_a_registered_cooperative_game_whose_clues_the_table_gives():
    description = described(GAME)
    assert description.cooperative and description.table_clues and not description.rated
    assert not described("codenames-coop").table_clues


def test_a_board_without_its_words_cannot_be_played_and_says_so():
    game = record()
    for action in (Told("honey", 2), parse_action("touch 0")):
        with pytest.raises(RuleError, match="which it does not know yet: read the cards"):
            game.apply(action)
    assert game.entries == []


def test_the_tables_clue_plays_the_cooperative_rules():
    game = record()
    game.apply(Words(WORDS))
    with pytest.raises(RuleError, match="the table gives the clues in this game"):
        game.apply(parse_action("clue 2"))
    state = game.apply(parse_action("told honey 2"))
    assert (state.phase, state.clue, state.told) == ("guess", 2, "honey")
    assert game.game.table_view(state).to_json()["told"] == "honey"
    with pytest.raises(RuleError, match="already has its clue"):
        game.apply(Told("bee", 1))
    state = game.apply(parse_action("touch 0"))
    state = game.apply(parse_action("touch 17"))  # a bystander: the turn ends, the table covers blue's first agent
    assert (state.phase, state.turn, state.told, state.clue) == ("clue", Team.RED, None, None)
    assert game.game.table_view(state).covered == (9,)
    with pytest.raises(RuleError, match="touch a card once the table has given its clue"):
        game.apply(parse_action("touch 1"))
    with pytest.raises(RuleError, match="the table covers the opponent's agent itself"):
        game.apply(parse_action("cover 10"))
    game.apply(Told("bee", 1))
    state = game.apply(parse_action("touch 24"))
    assert state.termination == Termination.ASSASSIN and state.winner == Team.BLUE
    with pytest.raises(GameOver):
        game.apply(Told("bee", 1))


def test_the_players_lose_when_the_opponents_last_agent_is_covered():
    game = record()
    game.apply(Words(WORDS))
    for bystander in range(17, 24):  # seven turns, each ended on a bystander: seven of blue's eight covered
        game.apply(Told("honey", 1))
        game.apply(parse_action(f"touch {bystander}"))
    game.apply(Told("honey", 1))
    game.apply(parse_action("touch 0"))
    state = game.apply(parse_action("end-turn"))
    assert state.is_over and state.termination == Termination.ALL_AGENTS_COVERED and state.winner == Team.BLUE


def test_a_told_clue_is_one_word_and_a_number_from_one():
    assert str(Told("honey", 2)) == "told honey 2" and parse_action("told honey 2") == Told("honey", 2)
    for text in ("told honey", "told honey 0", "told honey two", "told 2"):
        with pytest.raises(InvalidAction):
            parse_action(text)


def test_the_committed_figures_pass_the_gate_in_neither_language():
    for lang in ("en", "it"):
        figures = gate.measured(lang)
        assert figures is not None and not gate.passes(figures) and not gate.offered(lang)
    assert gate.measured("fr") is None and not gate.offered("fr")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "Codenames with the table as spymaster is not yet offered in this language"),
    ("it", "Nome in codice con il tavolo come capo dell'agenzia non è ancora disponibile in questa lingua"),
])
def test_where_the_gate_does_not_pass_the_mode_is_refused_in_that_language(lang, said):
    session = Session(Rules(), rng=random.Random(1), key=make_game(Rules()).parse_key(KEY))
    table = SimTable(session, lang=lang)
    outcome = table.loop.submit(NewGame(GAME))
    assert not outcome.ok and said in say(outcome.reason, lang)
    assert session.rules.game == "codenames"  # not started
    table.close()


def test_where_the_gate_passes_the_mode_starts(passing):
    session = Session(Rules(), rng=random.Random(1), key=make_game(Rules()).parse_key(KEY))
    table = SimTable(session, lang="it")
    assert table.loop.submit(NewGame(GAME)).ok and session.rules.game == GAME
    table.close()


def test_a_table_dealt_the_mode_where_it_is_not_offered_gives_no_clue(tmp_path):
    session = Session(RULES, rng=random.Random(1), key=make_game(RULES).parse_key(KEY))
    table = SimTable(session)
    assert table.loop.submit(parse_action(CONFIRMED)).ok
    assert session.grid.state.phase == "clue" and session.grid.state.told is None
    assert "not yet offered in this language" in say(table.loop.message, "en")
    table.close()


def test_the_table_gives_its_clue_once_the_words_are_confirmed_journals_it_and_undo_takes_it_back(passing, tmp_path):
    session = Session(RULES, rng=random.Random(1), key=make_game(RULES).parse_key(KEY), journal_dir=tmp_path,
                      fsync=False)
    table = SimTable(session)
    assert passing.asked == []  # no words, no clue
    assert table.loop.submit(parse_action(CONFIRMED)).ok
    assert session.grid.state.told == "hint1" and passing.asked[0].words == WORDS
    assert passing.asked[0].team == "R" and passing.asked[0].lang == "en"
    table.do(parse_action("touch 0"))
    again = Session.resume(RULES, tmp_path, fsync=False)  # a power cut: the clue comes back, not asked again
    assert again.grid.state.told == "hint1" and again.grid.state.guesses == 1 and len(passing.asked) == 1
    (path,) = (p for p in tmp_path.glob("*.jsonl") if session.id in p.name)
    assert "told hint1 2" in path.read_text()
    assert table.loop.submit(Undo()).ok  # the touch
    assert table.loop.submit(Undo()).ok  # the clue, and the words it was given from: no clue given again
    assert session.grid.state.words is None and session.grid.state.phase == "clue" and len(passing.asked) == 1
    table.close()


def test_a_whole_cooperative_game_with_the_tables_clues_in_the_terminal(passing):
    session = Session(RULES, rng=random.Random(1), key=make_game(RULES).parse_key(KEY))
    touches = [f"touch {cell}" for cell in (0, 1, 2, 17, 3, 4, 5, 6, 7, 8)]
    typed = iter([CONFIRMED, *touches])
    out: list[str] = []

    def read(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    interactive(session, read, out.append, Painter(False, "en"), terminal, settings=QUICK)
    state = session.grid.state
    assert state.is_over and state.winner == Team.RED and state.termination == Termination.ALL_AGENTS_FOUND
    assert [str(entry) for entry in session.grid.entries if isinstance(entry, Told)] == [
        "told hint1 2", "told hint2 2", "told hint3 2", "told hint4 2"]
    assert session.grid.game.table_view(state).covered == (9, 10, 11)  # the table covered one a turn
    assert "refused" not in "".join(out)


@pytest.mark.parametrize(("lang", "said"), [("en", "not yet offered in this language"),
                                            ("it", "non ancora disponibile in questa lingua")])
def test_the_staff_pages_game_choice_says_where_the_mode_is_not_offered(lang, said):
    offered = {game["game"]: game for game in games_offered(lang)}
    assert offered[GAME]["not_offered"] == said
    assert all(game["not_offered"] is None for name, game in offered.items() if name != GAME)


def test_the_staff_pages_game_choice_offers_the_mode_where_the_gate_passes(passing):
    assert {game["game"]: game["not_offered"] for game in games_offered("it")}[GAME] is None
