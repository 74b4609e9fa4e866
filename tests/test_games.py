"""One registry of games (issue 26): the engine registers each game by name with its kind, and
each layer above registers what it adds to each kind; no layer asks which game it plays."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # the screen's painter draws offscreen
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

import pi_table
from pi_table.cli import games as cli_games
from pi_table.engine import Codenames, InvalidRules, Rules, make_game
from pi_table.engine import games as engine_games
from pi_table.hal import NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.table import Session, history
from pi_table.table import games as table_games
from pi_table.table.input import InputSettings
from pi_table.table.journal import read_game
from pi_table.table.loop import EventLoop, LoopSettings
from pi_table.table.timer import DISCUSSION_S, TimerSettings
from pi_table.ui import games as ui_games
from pi_table.ui.i18n import GAME_TITLES
from pi_table.ui.leds import LightSettings
from pi_table.ui.screen import ScreenPainter
from pi_table.web import games as web_games

PACKAGE = Path(pi_table.__file__).parent
REGISTRIES = {"engine/games.py", "table/games.py", "ui/games.py", "web/games.py", "cli/games.py"}
"""The modules that name the kinds: each layer's registry (the command line's is in cli/games.py)."""


def test_every_kind_is_registered_on_every_layer():
    kinds = set(engine_games.KINDS)
    assert kinds == {"grid", "codex"}
    assert {"table": set(table_games.KINDS), "ui": set(ui_games.KINDS), "web": set(web_games.KINDS),
            "cli": set(cli_games.KINDS)} == {"table": kinds, "ui": kinds, "web": kinds, "cli": kinds}


def test_every_game_is_named_as_its_engine_names_itself_and_has_a_title():
    for name, game in engine_games.GAMES.items():
        rules = game.rules_from({})
        assert rules.game == name and make_game(rules).name == name == game.engine().name
        assert engine_games.kind_of(name) == game.kind
    assert set(GAME_TITLES) == set(engine_games.NAMES)  # as a person reads its name


@pytest.mark.parametrize("kind", engine_games.KINDS)
def test_each_layer_finds_what_it_registers_in_its_own_package(kind):
    loop = table_games.loop_class(kind)
    assert issubclass(loop, EventLoop) and loop.made is not EventLoop.made and loop.__module__.startswith("pi_table.table.")
    painter = ui_games.screen_painter(kind)
    assert painter.__module__.startswith("pi_table.ui.") and callable(painter.draw) and callable(painter.tap)
    assert ui_games.SHOWN[ui_games.KINDS[kind].model] == kind  # the model its loop shows is drawn by its painter
    frame, next_change = ui_games.lights(kind)
    assert frame.__module__ == next_change.__module__ and frame.__module__.startswith("pi_table.ui.")
    assert ui_games.sound_cues(kind).__module__ == "pi_table.ui.sound"
    assert callable(cli_games.KINDS[kind].sim) and callable(cli_games.KINDS[kind].status)


def test_an_unknown_game_is_refused_naming_every_game():
    """Moved from the rules' own check (tests/test_setup_variants.py): the registry is the one list of games."""
    with pytest.raises(InvalidRules) as refused:
        engine_games.entry("chess")
    assert str(refused.value) == "game is one of codenames, codenames-coop, alias24, codex, not 'chess'"
    with pytest.raises(InvalidRules, match="game is one of .*, not 'chess'"):
        make_game(Rules(game="chess"))
    with pytest.raises(InvalidRules, match="rules for 'Rules' given to the 'codex' game"):
        make_game(Rules(game="codex"))


def test_naming_every_game_loads_none_of_codex():
    """The registries name Codex's engine, loop, painters and simulator without loading them, and
    read its rules: a table dealing the grid games starts without Codex (tests/test_startup.py)."""
    child = ("import sys\nfrom pi_table import cli\nfrom pi_table.engine import games\n"
             "from pi_table.table import games as t\nfrom pi_table.ui import games as u\n"
             "assert games.entry('codex').rules_from({'sealed_votes': True}).sealed_votes\n"
             "print(sorted(m for m in sys.modules if m.startswith(('pi_table.engine.codex', 'pi_table.table.codex',"
             " 'pi_table.ui.codex', 'pi_table.sim'))))\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "['pi_table.engine.codex_rules']"), done.stderr


# --- no layer asks which game it plays -------------------------------------------------------------


def kind_questions(tree: ast.AST, kinds: set[str]) -> list[int]:
    """The lines that ask which kind of game this is: a comparison with a kind's name (``==
    'codex'``, ``== CODEX``), a yes or no named after a kind (``if session.codex:``, ``... !=
    loop.codex``, ``is_codex(rules)``)."""

    def names_a_kind(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in kinds
        if isinstance(node, ast.Name):
            return node.id.lower() in kinds
        if isinstance(node, ast.Attribute):
            return node.attr.lower() in kinds
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.removeprefix("is_") in kinds

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            asked = [node.left, *node.comparators]
        elif isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            asked = [node.test]
        elif isinstance(node, ast.BoolOp):
            asked = node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            asked = [node.operand]
        else:
            continue
        if any(names_a_kind(operand) for operand in asked):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_no_layer_asks_which_kind_of_game_it_plays():
    kinds = set(engine_games.KINDS)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where in REGISTRIES:
            continue
        found += [f"{where}:{line}" for line in kind_questions(ast.parse(path.read_text(encoding="utf-8")), kinds)]
    assert found == []


def test_the_kind_question_checker_sees_one():
    """Guard against a checker that passes vacuously: both forms are reported."""
    tree = ast.parse("if session.codex:\n    pass\nif rules.game == 'codex' or kind != 'grid':\n    pass\n"
                     "shown = not painter.codex\nrecord = session.grid.state\nx = is_codex(rules) and game != CODEX\n")
    assert kind_questions(tree, {"grid", "codex"}) == [1, 3, 5, 7]


# --- a fifth game: one room and one registry line --------------------------------------------------


class Rapid(Codenames):
    """A fifth game's room, for the test: Codenames whose clue number must be entered first, as
    a game of its own (a real one would change more of the rules)."""

    name = "codenames-rapid"


@pytest.fixture
def fifth_game(monkeypatch):
    """The registry line: a grid game, played on the grid's table, screen and lights."""
    monkeypatch.setitem(engine_games.GAMES, Rapid.name, engine_games.GameEntry(Rapid.name, "grid", lambda: Rapid,
                                                                                lambda: Rules))
    return Rapid.name


def test_a_fifth_game_is_played_journalled_shown_and_kept_with_no_other_change(fifth_game, tmp_path):
    rules = engine_games.entry(fifth_game).rules_from({"clue_required": True})
    session = Session(rules, key=make_game(rules).parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA"), journal_dir=tmp_path,
                      fsync=False)
    settings = LoopSettings(InputSettings(), TimerSettings(), DISCUSSION_S, LightSettings(), "en")
    loop = table_games.loop_class(session.kind).made(session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(),
                                                     settings)
    loop.open()
    try:
        for text in ["clue 1", "touch 24"]:
            assert loop.submit(session.game.read_action(text)).ok
        loop.show()
        frame = ScreenPainter().draw(pygame.Surface((800, 480)), loop.screen.last, 0.0)
        assert "red touched the assassin" in " ".join(frame.texts).lower()
        assert not loop.submit(NewGame("codex")).ok  # another kind: another loop, which the daemon makes
    finally:
        loop.close()
    replay = read_game(next(tmp_path.glob("*.jsonl")))
    assert replay.header.rules == rules and replay.record.state == session.state and isinstance(replay.record.game, Rapid)
    (kept,) = history(tmp_path)
    assert (kept["game"], kept["termination"], kept["winner"]) == (fifth_game, "assassin", "blue")
