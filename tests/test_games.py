"""One registry of games (issue 26): the engine registers each game by name with its kind and
its description, and each layer above registers what it adds to each kind; no layer asks which
game it plays (issue 40: nor compares its name), so a fifth grid game is its module and its
registry line, which a test adds alone and plays everywhere."""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import os
import random
import re
import subprocess
import sys
import types
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # the screen's painter draws offscreen
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame
import pytest

import pi_table
from pi_table.cli import games as cli_games
from pi_table.cli import options as cli_options
from pi_table.engine import Codenames, InvalidRules, Rules, make_game
from pi_table.engine import games as engine_games
from pi_table.engine.described import Cards
from pi_table.engine.endings import Termination, UnknownTermination
from pi_table.fleet import schema as fleet_schema
from pi_table.hal import NewGame, SimButtons, SimLedStrip, SimScreen, SimTouch
from pi_table.night import games as night_games
from pi_table.sim import terminals as sim_terminals
from pi_table.sim.terminal import Painter, Terminal, interactive
from pi_table.sim.terminals import terminal
from pi_table.table import Session, history
from pi_table.table import games as table_games
from pi_table.table import loops as table_loops
from pi_table.table.input import HOLD_MIN_S, InputSettings
from pi_table.table.journal import read_game
from pi_table.table.loop import EventLoop, LoopSettings
from pi_table.table.loops import loop_class
from pi_table.table.timer import TimerSettings
from pi_table.ui import games as ui_games
from pi_table.ui import messages
from pi_table.ui.leds import LightSettings
from pi_table.ui.screen import MENU_SLOTS, MenuPage, Mode
from pi_table.ui.screens import ScreenPainter
from pi_table.web import games as web_games

from helpers import ROOT, parsed
from helpers_staff import Staff
from helpers_tables import StaffTable as InProcessTable

PACKAGE = Path(pi_table.__file__).parent
REGISTRIES = {"engine/games.py", "table/games.py", "table/loops.py", "ui/games.py", "web/games.py", "sim/terminals.py",
              "cli/games.py"}
"""The modules that name the kinds: each layer's registry (the command line's is in cli/games.py)."""


def test_every_kind_is_registered_on_every_layer():
    kinds = set(engine_games.KINDS)
    assert kinds == {"grid", "codex"}
    assert {"table": set(table_games.KINDS), "loops": set(table_loops.KINDS), "ui": set(ui_games.KINDS),
            "web": set(web_games.KINDS), "terminals": set(sim_terminals.KINDS), "cli": set(cli_games.KINDS)} == \
        dict.fromkeys(("table", "loops", "ui", "web", "terminals", "cli"), kinds)


def string_lookups(tree: ast.Module) -> list[int]:
    """The lines where a module imports ``importlib`` or writes a ``module:name`` string: a
    registry that names what it loads in text, which mypy and a typo cannot be checked against."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            and any(alias.name.split(".")[0] == "importlib" for alias in node.names)
            or isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "importlib"
            or isinstance(node, ast.Constant) and isinstance(node.value, str)
            and re.fullmatch(r"[\w.]+:[A-Za-z_]\w*", node.value) is not None]


@pytest.mark.parametrize("where", sorted(REGISTRIES))
def test_every_registry_loads_by_typed_functions_not_by_names_in_strings(where):
    """Issue 61.4: each layer's registry imports its kinds in loader functions mypy follows."""
    assert string_lookups(parsed(PACKAGE / where)) == []


def test_the_string_lookup_checker_sees_each_form():
    """Guard against a checker that passes vacuously."""
    tree = ast.parse('import importlib\nfrom importlib import import_module\nX = {"grid": "loop:TableLoop"}\n'
                     'Y = "a: b"\n')
    assert string_lookups(tree) == [1, 2, 3]


@pytest.mark.parametrize("name", engine_games.NAMES)
def test_every_game_is_named_as_its_engine_names_itself_and_described_in_both_languages(name):
    game = engine_games.entry(name)
    rules = game.rules_from({})
    assert rules.game == name and make_game(rules).name == name == game.engine().name
    assert engine_games.kind_of(name) == game.kind and game.engine().description is game.description
    italian = messages.parse_po(messages.po_path("it").read_text(encoding="utf-8"), "it")
    words = [game.description.title, *game.description.legend.values()]
    words += [said for choice in game.description.options for said in (choice.label, choice.help, *choice.words.values())]
    assert [word for word in words if not italian.get(word)] == []  # each a msgid the catalogue translates
    assert {choice.name for choice in game.description.options if choice.rule} <= game.options  # its rules take them


@pytest.mark.parametrize("name", engine_games.NAMES)
def test_every_game_says_who_plays_it_how_it_is_won_and_its_cards(name):
    """Issue 52: as OpenSpiel's ``GameType`` declares its players and utility, a description
    declares how many teams play, whether they play together, what a win scores, whether it is
    rated and (a grid game) its cards; a grid game deals the cards its description counts."""
    described = engine_games.described(name)
    assert described.teams in (1, 2) and (not described.rated or described.teams == 2)
    assert described.cooperative == (described.teams == 1)
    assert described.score is None or described.score.low <= described.score.high
    cards = described.cards
    if engine_games.kind_of(name) != "grid":
        assert cards is None
        return
    game = make_game(engine_games.entry(name).rules_from({}))  # its own rules' class
    key = game.deal(random.Random(52))
    assert sorted((key.count("R"), key.count("B"))) == sorted((cards.first, cards.second))
    assert (key.count("N"), key.count("A"), key.count(".")) == (cards.bystanders, cards.assassins, cards.dark)


def test_the_descriptions_tell_the_cooperative_game_from_the_others():
    """What the night, the screens and the tests ask instead of a game's name."""
    coop, codenames, alias = (engine_games.described(name) for name in ("codenames-coop", "codenames", "alias24"))
    assert (coop.teams, coop.cooperative, coop.rated) == (1, True, False)
    assert coop.score is not None and (coop.score.low, coop.score.high) == (1, 8)
    for other in (codenames, alias):
        assert (other.teams, other.cooperative, other.rated, other.score) == (2, False, True, None)
    assert (codenames.cards.dark, alias.cards.dark, alias.cards.bystanders) == (0, 1, 6)


@pytest.mark.parametrize("kind", engine_games.KINDS)
def test_each_layer_finds_what_it_registers_in_its_own_package(kind):
    loop = loop_class(kind)
    assert issubclass(loop, EventLoop) and loop.made is not EventLoop.made and loop.__module__.startswith("pi_table.table.")
    painter = ui_games.screen_painter(kind)
    assert painter.__module__.startswith("pi_table.ui.") and callable(painter.draw) and callable(painter.tap)
    assert ui_games.lights(kind).__module__.startswith("pi_table.ui.")
    assert ui_games.sound_cues(kind).__module__.startswith("pi_table.ui.")
    assert callable(cli_games.sim(kind)) and callable(cli_games.status(kind))
    assert issubclass(terminal(kind), Terminal) and terminal(kind).__module__.startswith("pi_table.sim.")


def test_an_unknown_game_is_refused_naming_every_game():
    """Moved from the rules' own check (tests/test_setup_variants.py): the registry is the one list of games."""
    with pytest.raises(InvalidRules) as refused:
        engine_games.entry("chess")
    assert str(refused.value) == f"game is one of {', '.join(engine_games.NAMES)}, not 'chess'"
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


GAME_CLASSES = {entry.engine().__name__ for entry in engine_games.GAMES.values()}
"""The engines' class names, whose ``name`` a comparison may read (``Alias24.name``)."""


REGISTRY_NAMES = {"NAMES", "KINDS", "DEFAULT", "names", "names_of"}
"""The registry's lists of names (pi_table/engine/games.py): one of them picked out is a game's name."""
NAMED_LIKE = ("game", "kind", "name")
"""How a variable that holds a game's or a kind's name is called: ``game``, ``rules.game``, ``kind``, ``entry.name``."""
FRAGMENT = 4
"""The shortest piece of a game's name that asks for it (``startswith("code")``, ``f"{game}-coop"``)."""


def holds_a_name(node: ast.expr, kinds: set[str], games: frozenset[str]) -> bool:
    """Whether an expression is a kind's or a game's name, or a collection of them: the string
    itself, ``Alias24.name``, one the registry's lists pick out (``NAMES[1]``, ``DEFAULT``), or a
    tuple, list or set literal (or ``frozenset(...)`` of one) that holds one."""
    if isinstance(node, ast.Constant):
        return node.value in kinds or node.value in games
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(holds_a_name(element, kinds, games) for element in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset", "tuple", "list"):
        return any(holds_a_name(argument, kinds, games) for argument in node.args)
    if isinstance(node, ast.Subscript):
        return word_of(node.value.func if isinstance(node.value, ast.Call) else node.value) in REGISTRY_NAMES
    return (isinstance(node, ast.Attribute) and node.attr == "name" and isinstance(node.value, ast.Name)
            and node.value.id in GAME_CLASSES) or word_of(node) == "DEFAULT"


def word_of(node: ast.expr) -> str:
    """The name a variable or an attribute is read by (``game``, ``rules.game`` give ``game``)."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def named_like_a_name(node: ast.expr) -> bool:
    return word_of(node).lower().endswith(NAMED_LIKE)


def piece_of_a_name(text: object, kinds: set[str], games: frozenset[str]) -> bool:
    """Whether a literal is a piece of a kind's or a game's name long enough to mean it (``"code"``, ``"-coop"``)."""
    return isinstance(text, str) and len(text) >= FRAGMENT and any(text.lower() in name for name in kinds | games)


def names_a_game_in_an_attribute(text: object, kinds: set[str], games: frozenset[str]) -> bool:
    """Whether an attribute's name says a kind's or a game's (``"codenames_coop_rules"``, ``"draw_codex"``)."""
    return isinstance(text, str) and any(name.replace("-", "_") in text.lower() for name in kinds | games)


def composes_a_name(text: ast.JoinedStr, games: frozenset[str]) -> bool:
    """Whether an f-string builds a game's name from a piece of one beside a field
    (``f"codenames-{variant}"``, ``f"{game}-coop"``); one that says a name in a sentence or a
    cue's name (``f"Codex: {title}"``, ``f"codex-{step}"``) builds none."""
    values = text.values
    for at, value in enumerate(values):
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        piece = value.value.lower()
        before = at + 1 < len(values) and any(
            name.startswith(piece[-size:]) for name in games for size in range(FRAGMENT, len(piece) + 1))
        after = at > 0 and any(
            name.endswith(piece[:size]) for name in games for size in range(FRAGMENT, len(piece) + 1))
        if before or after:
            return True
    return False


def name_constants(tree: ast.Module, kinds: set[str], games: frozenset[str]) -> set[str]:
    """The names a module binds to a kind's or a game's name, anywhere in it (``COOP =
    "codenames-coop"``, ``wanted = NAMES[1]`` in a function)."""
    found = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if targets and value is not None and holds_a_name(value, kinds, games):
            found |= {target.id for target in targets if isinstance(target, ast.Name)}
    return found


def imported_constants(tree: ast.Module, module: str, constants: dict[str, set[str]]) -> set[str]:
    """The names under which a module (dotted, ``pi_table.night.games``) reads another's constants
    that hold a name: ``from .games import COOP`` gives ``COOP``, ``from . import games`` gives
    ``games.COOP`` (as ``COOP``: an attribute of that name is asked about)."""
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = module.split(".")[: len(module.split(".")) - node.level] if node.level else []
        source = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            if alias.name in constants.get(source, set()):
                found.add(alias.asname or alias.name)
            found |= constants.get(f"{source}.{alias.name}", set())
    return found


def looked_up_by_name(tree: ast.AST, kinds: set[str], games: frozenset[str]) -> list[int]:
    """The lines that look a value up in a dict whose keys are games' or kinds' names
    (``{"codenames": 2}[game]``, ``SCORES.get(game)`` where ``SCORES`` is such a dict): a table of
    something per game, where the game's description should say it."""
    keyed = {id(node) for node in ast.walk(tree)
             if isinstance(node, ast.Dict) and any(key is not None and holds_a_name(key, kinds, games) for key in node.keys)}
    tables = {target.id for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AnnAssign))
              and id(node.value) in keyed
              for target in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(target, ast.Name)}

    def a_table(node: ast.expr) -> bool:
        return id(node) in keyed or (isinstance(node, ast.Name) and node.id in tables)

    def looks_up(node: ast.AST) -> bool:
        if isinstance(node, ast.Subscript):
            return a_table(node.value) and not isinstance(node.slice, ast.Constant)
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop")
                and a_table(node.func.value))

    return [node.lineno for node in ast.walk(tree) if looks_up(node)]


def kind_questions(tree: ast.AST, kinds: set[str], games: frozenset[str] = frozenset(),
                   held: set[str] = frozenset(), own: bool = True) -> list[int]:
    """The lines that ask which kind of game this is, or which game, in each way a newcomer would
    write it: a comparison (``==``, ``!=``, ``in``) with a kind's or a game's name or a collection
    of them (``== 'codex'``, ``in ("codenames", "alias24")``, ``== Alias24.name``, ``== NAMES[1]``),
    or with a constant that holds one (``COOP = "codenames-coop"`` then ``== COOP``: the module's
    own unless ``own`` is False, and ``held``, those it imports or reads from another module); a
    ``case`` of one; a piece of one asked of a name (``game.startswith("code")``, ``"coop" in
    game``); a dict of games looked up; ``getattr`` by a game's name or by a variable holding one; an
    f-string that builds one; a yes or no named after a kind (``if session.codex:``, ``... !=
    loop.codex``, ``is_codex(rules)``)."""
    constants = (name_constants(tree, kinds, games) if own else set()) | set(held)

    def names_a_kind(node: ast.expr) -> bool:
        if holds_a_name(node, kinds, games):
            return True
        if isinstance(node, (ast.Name, ast.Attribute)):
            return word_of(node).lower() in kinds or word_of(node) in constants
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.removeprefix("is_") in kinds

    def asks_a_piece(node: ast.Compare) -> bool:
        operands = [node.left, *node.comparators]
        return any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops) and any(
            isinstance(operand, ast.Constant) and piece_of_a_name(operand.value, kinds, games) for operand in operands) and any(
            named_like_a_name(operand) for operand in operands)

    def asks(node: ast.AST) -> bool:
        if isinstance(node, ast.Compare):
            return asks_a_piece(node) or any(names_a_kind(operand) for operand in (node.left, *node.comparators))
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            return names_a_kind(node.test)
        if isinstance(node, ast.BoolOp):
            return any(names_a_kind(value) for value in node.values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return names_a_kind(node.operand)
        if isinstance(node, ast.MatchValue):
            return names_a_kind(node.value)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("startswith", "endswith"):
            pieces = [element for argument in node.args
                      for element in (argument.elts if isinstance(argument, ast.Tuple) else [argument])]
            return any(isinstance(piece, ast.Constant) and piece_of_a_name(piece.value, kinds, games) for piece in pieces)
        if isinstance(node, ast.Call) and word_of(node.func) in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
            attribute = node.args[1]
            if isinstance(attribute, ast.JoinedStr):
                return any(isinstance(value, ast.FormattedValue) and named_like_a_name(value.value)
                           for value in attribute.values)
            return isinstance(attribute, ast.Constant) and names_a_game_in_an_attribute(attribute.value, kinds, games)
        return isinstance(node, ast.JoinedStr) and composes_a_name(node, games)

    lines = looked_up_by_name(tree, kinds, games) + [node.lineno for node in ast.walk(tree) if asks(node)]
    return sorted(set(lines))


OWN_NAMES = {"engine/codex_rules.py"}
"""A game's own room, whose constant is its own name, which its rules check they were given."""


def package_questions() -> list[str]:
    """Every kind or game question in the package's modules but the registries (which name the
    games and kinds they register: they are what the others ask instead); a constant that holds a name counts wherever it is read, in its module or another."""
    kinds, games = set(engine_games.KINDS), frozenset(engine_games.NAMES)
    trees = {path.relative_to(PACKAGE).as_posix(): parsed(path) for path in sorted(PACKAGE.rglob("*.py"))}
    modules = {where: "pi_table." + where.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
               for where in trees}
    constants = {modules[where]: name_constants(tree, kinds, games) for where, tree in trees.items()
                 if where not in REGISTRIES}
    return [f"{where}:{line}" for where, tree in trees.items() if where not in REGISTRIES
            for line in kind_questions(tree, kinds, games, imported_constants(tree, modules[where], constants),
                                       own=where not in OWN_NAMES)]


def test_no_layer_asks_which_kind_of_game_it_plays_nor_which_game():
    """The night too reads the description (issue 52.1), not ``game == COOP``."""
    assert package_questions() == [], "ask the game's description (engine/games.py: described), not its name"


def test_the_kind_question_checker_sees_one():
    """Guard against a checker that passes vacuously: every form is reported."""
    tree = ast.parse("if session.codex:\n    pass\nif rules.game == 'codex' or kind != 'grid':\n    pass\n"
                     "shown = not painter.codex\nrecord = session.grid.state\nx = is_codex(rules) and game != CODEX\n"
                     "alias = view.game == 'alias24'\ncoop = after.game == CodenamesCoop.name\n")
    assert kind_questions(tree, {"grid", "codex"}, frozenset({"alias24"})) == [1, 3, 5, 7, 8, 9]
    held = ast.parse('COOP = "codenames-coop"\nLATER: str = Alias24.name\n\n\ndef f(game):\n'
                     '    return game == COOP or LATER != game\n')
    assert kind_questions(held, {"grid", "codex"}, frozenset({"codenames-coop"})) == [6]
    constants = {"pi_table.night.games": {"COOP"}}
    imported = ast.parse("from ..night.games import COOP as C\nfrom ..night import games\n"
                         "teams = 1 if game == C else 2\nrated = games.COOP != game\n")
    held = imported_constants(imported, "pi_table.web.night", constants)
    assert held == {"C", "COOP"} and kind_questions(imported, {"grid"}, frozenset(), held) == [3, 4]


PLANTED = """\
SCORES = {"alias24": 2, "codenames": 1}
LABELS = {"codenames": "the classic"}


def asks(game, rules, x, kind, entry, games, state, c, path):
    a = rules.game == "codenames"
    b = game != "alias24"
    c = game in ("codenames", "codenames-coop")
    d = game in {"alias24"}
    e = rules.game not in ["codex"]
    match game:
        case "codenames" | "alias24":
            pass
    g = game.startswith("code")
    h = {"codenames": 2, "alias24": 3}[game]
    i = getattr(x, "codenames_coop_rules")
    j = getattr(x, f"draw_{rules.game}")
    k = f"codenames-{x}"
    m = game == NAMES[1]
    n = kind == games.KINDS[0]
    o = entry.name != names()[2]
    p = SCORES.get(game, 0)
    q = rules.game.endswith("-coop")
    r = f"{game}-coop"
    s = "coop" in rules.game
    wanted = names_of("grid")[0]
    u = game == wanted


def asks_nothing(game, state, x, c, path, library):
    said = {"codenames": list(state.codenames)}
    given = state["codenames"]
    shown = [label for label in LABELS.values()]
    pins = getattr(library, f"WS2811_STRIP_{c.order}")
    known = game in NAMES
    spaced = path.startswith("pi")
    counted = f"{x} cards"
    return said, given, shown, pins, known, spaced, counted
"""
"""A module that asks a game its name in each way a newcomer would write it (the lines of
``asks``), and looks at names in ways that ask nothing (``asks_nothing``: a key of a state's JSON
that happens to be a game's word, a list merely shown, the registry asked whether a name is a game)."""

PLANTED_QUESTIONS = [6, 7, 8, 9, 10, 12, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 27]


def test_the_kind_question_checker_reads_every_way_of_asking_a_games_name():
    """Issue 61.8: the checker read ``==`` with a constant and missed ``in (...)``, ``match``,
    ``startswith``, a dict looked up by the name, ``getattr`` by name, an f-string, the registry's
    names; it read 2 of the 19 lines of ``asks``."""
    tree = ast.parse(PLANTED)
    found = kind_questions(tree, set(engine_games.KINDS), frozenset(engine_games.NAMES))
    planted = PLANTED.splitlines()
    assert {line: planted[line - 1].strip() for line in found} == {
        line: planted[line - 1].strip() for line in PLANTED_QUESTIONS}


def code_naming(tree: ast.Module, word: str) -> list[int]:
    """The lines of a Python module whose code (not a comment, not a docstring) names ``word``."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    lines = set()
    for node in ast.walk(tree):
        named = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else
                 node.module or "" if isinstance(node, ast.ImportFrom) else
                 " ".join(alias.name for alias in node.names) if isinstance(node, ast.Import) else
                 node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 and id(node) not in docstrings else "")
        if word in named.lower():
            lines.add(node.lineno)
    return sorted(lines)


def test_only_codexs_own_rooms_and_the_registries_name_codex():
    """Issue 40: ``git grep -il codex -- pi_table`` outside Codex's own modules (named after it),
    the registries and the catalogues lists only documentation: every other module names it in a
    docstring or a comment at most, and a page or a script of the phones' not at all."""
    found = []
    for path in sorted(PACKAGE.rglob("*")):
        where = path.relative_to(PACKAGE).as_posix()
        if not path.is_file() or "codex" in path.name or where in REGISTRIES or where.startswith("ui/locale/"):
            continue
        if path.suffix == ".py":
            found += [f"{where}:{line}" for line in code_naming(parsed(path), "codex")]
        elif path.suffix in (".html", ".js", ".css") and "codex" in path.read_text(encoding="utf-8").lower():
            found.append(where)
    assert found == []
    assert code_naming(ast.parse('"""Codex, in words."""\nfrom .codex import Codex  # Codex\nx = "codex"\n'), "codex") == [2, 3]


# --- a fifth game: one module and one registry line ------------------------------------------------


class TwoAssassins(Codenames):
    """A fifth game's module, for the test: Codenames with two assassins (9, 8, 6 and 2 cards).
    A real one's title is a msgid with its Italian in the catalogue; this one is said in English."""

    name = "codenames-two-assassins"
    description = replace(Codenames.description, title="Codenames with two assassins",
                          cards=Cards(first=9, second=8, bystanders=6, assassins=2))


KEY = "RRRRRRRRRBBBBBBBBNNNNNNAA"  # red starts; the assassins on cells 23 and 24
CODENAMES_KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


@pytest.fixture
def fifth_game(monkeypatch):
    """Its registry line: all the test adds to the table."""
    monkeypatch.setitem(engine_games.GAMES, TwoAssassins.name, engine_games.GameEntry.grid(TwoAssassins))
    return TwoAssassins.name


def grid_loop(session: Session) -> EventLoop:
    settings = LoopSettings(InputSettings(), TimerSettings(), LightSettings(), "en")
    return loop_class(session.kind).made(session, SimTouch(), SimLedStrip(), SimScreen(), SimButtons(),
                                                     settings)


def press(painter: ScreenPainter, found) -> object:
    """Tap the middle of the first region ``found`` accepts; what the tap asks for."""
    x, y, w, h = next(tap for tap in painter.frame.taps if found(tap)).rect
    return painter.tap((x + w // 2, y + h // 2))


def test_a_fifth_game_is_chosen_on_the_screen_played_journalled_and_kept(fifth_game, tmp_path):
    """The screen's menu offers it; dealt, its key has two assassins, and either ends the game;
    the journal replays it and the history keeps it by its name."""
    session = Session(Rules(), key=make_game(Rules()).parse_key(CODENAMES_KEY), journal_dir=tmp_path, fsync=False)
    loop = grid_loop(session)
    painter, surface = ScreenPainter(), pygame.Surface((800, 480))
    loop.open()
    try:
        painter.draw(surface, loop.screen.last, 0.0)
        assert press(painter, lambda tap: tap.mode is Mode.NEW_GAME) is None  # the menu opens
        painter.draw(surface, loop.screen.last, 0.0)
        for _ in engine_games.names():  # on the page MORE turns to, when the menu has more games than a page holds
            if "Codenames with two assassins" in painter.frame.texts:
                break
            assert press(painter, lambda tap: isinstance(tap.mode, MenuPage)) is None
            painter.draw(surface, loop.screen.last, 0.0)
        assert "Codenames with two assassins" in painter.frame.texts
        chosen = press(painter, lambda tap: tap.command == NewGame(fifth_game))
        assert chosen == NewGame(fifth_game) and loop.submit(chosen).ok
        key = session.spymaster_view().key
        assert session.rules.game == fifth_game and (key.count("A"), key.count("N")) == (2, 6)
        first, second = (cell for cell, identity in enumerate(key.cells) if identity == "A")
        for assassin in (first, second):  # either one: undone, then the other
            assert loop.submit(session.game.read_action(f"touch {assassin}")).ok
            loop.show()
            texts = " ".join(painter.draw(surface, loop.screen.last, 0.0).texts).lower()
            assert f"{key.start.value} touched the assassin" in texts and f"{key.start.other.value} wins" in texts
            if assassin == first:
                assert loop.submit(session.game.read_action("undo")).ok
        assert not loop.submit(NewGame("codex")).ok  # another kind: another loop, which the daemon makes
    finally:
        loop.close()
    replay = read_game(max(tmp_path.glob("*.jsonl")))
    assert replay.header.rules == session.rules and replay.record.state == session.state
    assert isinstance(replay.record.game, TwoAssassins)
    (kept, *_) = history(tmp_path)
    assert (kept["game"], kept["termination"], kept["winner"]) == (fifth_game, "assassin", key.start.other.value)


def test_a_fifth_game_is_played_in_the_terminal(fifth_game):
    """Dealt there by its name, with its key's legend; its assassin ends it."""
    typed = iter([f"new-game {fifth_game}", "y", "touch 0", "new-game", "y"])
    session = Session(Rules(), key=make_game(Rules()).parse_key(CODENAMES_KEY))
    out: list[str] = []

    def read(prompt: str) -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    interactive(session, read, out.append, Painter(False), terminal, settings=InputSettings(hold_s=HOLD_MIN_S, stuck_s=5))
    text = " ".join("".join(out).split())
    assert session.rules.game == fifth_game and session.record.key.cells.count("A") == 2
    assert "Codenames with two assassins ·" in text and "A=assassin" in text and "KEY (spymasters only)" in text
    typed = iter([f"touch {session.record.key.cells.index('A')}"])
    out.clear()
    interactive(session, read, out.append, Painter(False), terminal, settings=InputSettings(hold_s=HOLD_MIN_S, stuck_s=5))
    assert "touched the assassin" in "".join(out) and session.state.is_over


@pytest.mark.daemon
def test_a_fifth_game_is_on_the_staff_pages_form_and_dealt_from_it(fifth_game, tmp_path):
    """The form is drawn from the table's answer: the game by its title, with its options."""
    table = InProcessTable(tmp_path, CODENAMES_KEY)
    try:
        staff = Staff(table.base)
        assert staff.login()[0] == 200
        status, answer = staff.call("GET", "/staff/api/table")
        (offered,) = [game for game in answer["games"] if game["game"] == fifth_game]
        assert offered["title"] == "Codenames with two assassins"
        assert [option["name"] for option in offered["options"]] == ["clue_required", "three_player", "setup"]
        status, answer = staff.call("POST", "/staff/api/new-game", {"game": fifth_game, "options": {"clue_required": True}})
        assert status == 200 and answer["state"]["game"] == fifth_game
        assert table.daemon.session.rules == Rules(game=fifth_game, clue_required=True)
        assert table.daemon.session.record.key.cells.count("A") == 2
    finally:
        table.close()


@pytest.mark.parametrize("warned", [False, True], ids=["calm", "a warning over the screen"])
def test_the_menu_lays_out_any_number_of_games(monkeypatch, warned):
    """Seven more grid games: a page holds what fits at a finger's size (a warning's banner
    leaves less room: fewer a page) and MORE, BACK on every page, and MORE comes round to the
    first; each game once, the game on the table among them. (Adding a fourth game as
    adding-a-game.md says, three rows of buttons under a banner came out 49 px high.)"""
    before = len([name for name in engine_games.names_of("grid") if engine_games.described(name).offered])
    for number in range(7):
        name = f"codenames-{number}"
        game = type(f"Variant{number}", (Codenames,), {"name": name, "description": replace(
            Codenames.description, title=f"Variant {number}")})
        monkeypatch.setitem(engine_games.GAMES, name, engine_games.GameEntry.grid(game))
    offered = [name for name in engine_games.names_of("grid") if engine_games.described(name).offered]
    assert len(offered) == before + 7
    session = Session(Rules(), key=make_game(Rules()).parse_key(CODENAMES_KEY))
    loop = grid_loop(session)
    if warned:
        loop.faults["leds"] = "the LED strip is not working"
    painter, surface = ScreenPainter(), pygame.Surface((800, 480))
    seen: list[str] = []
    try:
        loop.show()
        painter.draw(surface, loop.screen.last, 0.0)
        assert bool(loop.screen.last.warnings) is warned
        press(painter, lambda tap: tap.mode is Mode.NEW_GAME)
        while True:
            painter.draw(surface, loop.screen.last, 0.0)
            deals = [tap.command for tap in painter.frame.taps if isinstance(tap.command, NewGame)]
            assert 1 <= len(deals) <= MENU_SLOTS - 2 and any(tap.mode is Mode.PLAY for tap in painter.frame.taps)
            assert all(min(pygame.Rect(tap.rect).size) >= 60 for tap in painter.frame.taps), "smaller than a finger"
            games = [command.game or session.rules.game for command in deals]
            if games[0] in seen:  # MORE came round to the first page
                break
            seen += games
            assert press(painter, lambda tap: tap.mode is not None and not isinstance(tap.mode, Mode)) is None  # MORE
    finally:
        loop.close()
    assert sorted(seen) == sorted(offered)


# --- a game's own option: its rules class, its description, no command-line line -----------------


GUIDE = ROOT / "docs" / "dev" / "adding-a-game.md"


def the_guides_game() -> types.ModuleType:
    """The module docs/dev/adding-a-game.md writes for a game with an option and a way to end of
    its own (the first block of Python under that heading), loaded as ``pi_table/engine/tokens.py``
    would be: what the guide shows is what these tests play."""
    section = GUIDE.read_text(encoding="utf-8").split("## An option and a way to end of its own\n", 1)[1]
    source = section.split("```python\n", 1)[1].split("```", 1)[0]
    module = types.ModuleType("the_guides_tokens")
    module.__package__ = "pi_table.engine"  # its relative imports, as in its room
    sys.modules[module.__name__] = module  # where dataclasses look its names up
    exec(compile(source, str(GUIDE), "exec"), module.__dict__)  # noqa: S102 (the checkout's own guide)
    return module


TOKENS_GAME = the_guides_game()
TokenRules, WithTokens, TOKENS_SPENT = TOKENS_GAME.TokenRules, TOKENS_GAME.WithTokens, TOKENS_GAME.TOKENS_SPENT


def another_value(choice) -> object:
    """A value of ``choice`` other than its default: what a player asks for when giving it."""
    if choice.kind == "bool":
        return not choice.default
    if choice.values:
        return next(value for value in choice.values if value != choice.default)
    low, high = (int(end) if choice.kind == "int" else end for end in choice.span)
    return high if choice.default != high else low


@pytest.mark.parametrize("game", engine_games.NAMES)
def test_each_games_options_reach_its_own_rules_from_the_command_line_and_are_refused_for_another(game):
    """Issue 61.3: the command line's options are the games' descriptions' rules, so a game's own
    option (the guide's ``--tokens``) is a flag with no line of the command line's, reaches the
    game's own rules class, and is refused for a game that does not take it, naming those that do."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    cli_options.game_options(parser, every_game=True)
    own_rules = engine_games.entry(game).rules()
    for choice in (choice for choice in engine_games.described(game).options if choice.rule):
        value = another_value(choice)
        flag = ["--" + choice.name.replace("_", "-"), *([] if choice.kind == "bool" else [str(value)])]
        args = parser.parse_args(["--game", game, *flag])
        cli_options.refuse_other_games_options(parser, args)
        rules = cli_options.rules_of(args)
        assert (type(rules), getattr(rules, choice.name)) == (own_rules, value), flag
        owners = [name for name in engine_games.NAMES if choice in engine_games.described(name).options]
        for other in (name for name in engine_games.NAMES if name not in owners):
            refused = parser.parse_args(["--game", other, *flag])
            with pytest.raises(SystemExit), contextlib.redirect_stderr(io.StringIO()) as said:
                cli_options.refuse_other_games_options(parser, refused)
            assert f"{flag[0]}: an option of {', '.join(owners)}; {other} takes" in said.getvalue()


@pytest.mark.parametrize("ending", engine_games.terminations(), ids=str)
def test_every_way_to_end_is_read_by_the_night_and_the_fleet(ending):
    """Issue 61.3: what reads a finished game's code (the night's record, the fleet's schema) asks
    the registry, so a game's own way to end (the guide's ``tokens_spent``) is read with no line of
    theirs while its game is registered."""
    view = {"game": engine_games.NAMES[0], "termination": ending.value, "winner": "red", "losers": ["blue"],
            "score": None}
    recorded = night_games.from_view("g1", "t1", ("Lupi", "Orsi"), view, 1, 0.0)
    assert recorded is not None and night_games.Game.from_json(recorded.to_json()).termination is ending
    assert fleet_schema.TERMINATION.fits(ending.value) and engine_games.termination(ending.value) is ending


def test_a_games_own_way_to_end_is_played_said_and_read_with_no_line_of_the_shared_endings(monkeypatch, play):
    """Issue 61.3: a game's own ending is made in its module and listed in its description, as its
    options are; the engine ends the game with it, the sentence is the game's, and what reads a
    finished game's code (the night's record, the fleet's schema) knows it while the game is
    registered, and refuses it once it is not. engine/endings.py has no line of it."""
    monkeypatch.setitem(engine_games.GAMES, WithTokens.name, engine_games.GameEntry.grid(WithTokens, TokenRules))
    red_starts = "RRRRRRRRRBBBBBBBBNNNNNNNA"  # red 0-8, blue 9-16, bystanders 17-23, assassin 24
    played = play(red_starts, ["clue 3", "touch 17", "clue 1", "touch 18"], TokenRules(game=WithTokens.name, tokens=2))
    state, view = played.state, played.view
    assert (state.termination, view["termination"], view["winner"], view["losers"]) == (
        TOKENS_SPENT, "tokens_spent", "red", ["blue"])
    assert view["reason"] == "blue spent the last timer token"
    assert engine_games.termination("tokens_spent") is TOKENS_SPENT and TOKENS_SPENT in engine_games.terminations()
    assert fleet_schema.TERMINATION.fits("tokens_spent")
    impostor = replace(WithTokens.description, endings=(Termination("assassin", "an assassin of its own"),))
    monkeypatch.setitem(engine_games.GAMES, "impostor", replace(engine_games.GAMES[WithTokens.name], name="impostor",
                                                                 description=impostor))
    with pytest.raises(ValueError, match="impostor's way to end 'assassin' has the code of another"):
        engine_games.terminations()
    unregistered = {name: game for name, game in engine_games.GAMES.items() if name not in ("impostor", WithTokens.name)}
    monkeypatch.setattr(engine_games, "GAMES", unregistered)  # a tree that registers it too: the registry's order kept
    assert not fleet_schema.TERMINATION.fits("tokens_spent")
    with pytest.raises(UnknownTermination, match="a game's termination is one of all_agents_found"):
        engine_games.termination("tokens_spent")
