"""Fixtures shared by several test files (the engine tests' game, a browser, the phones' pages, a Codex daemon); the
tier each test runs in; the Hypothesis profiles; and, under PI_TABLE_REQUIRE_TOOLS, no skip.

The heavy imports (playwright, the daemon) are made inside the fixtures: the arm64 check runs
only the engine, protocol and simulation tests, without them."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
from hypothesis import settings

from pi_table.engine import Game, Key, Rules, State, Team, make_game, parse_action

from helpers import REQUIRE_TOOLS, forget_parsed, require_tools
from helpers_games import with_drawn_key
from helpers_phones import CHROMIUM, CHROMIUM_ARGS
from helpers_tables import CODEX_CONFIG, CodexTable, InProcessDaemon

pytest_plugins = ("left_behind",)  # no test leaves a process behind


@dataclass
class Played:
    game: Game
    state: State
    key: Key | None = None  # Deep Undercover: the key its last placement brings, as the session draws it

    @property
    def view(self) -> dict:
        return self.game.table_view(self.state).to_json()

    def apply(self, text: str) -> Played:
        action = with_drawn_key(self.game, self.state, parse_action(text), self.key)
        return Played(self.game, self.game.apply(self.state, action), self.key)


def _play(key: str, actions=(), rules: Rules | None = None, start: Team | None = None) -> Played:
    """Start a game on ``key`` and apply each action text in turn (python-chess style: position + moves);
    Deep Undercover starts without a key, and ``key`` comes with its last placement."""
    game = make_game(rules or Rules())
    dealt = game.parse_key(key, start)
    placing = game.rules.setup == "place"
    played = Played(game, game.start(None if placing else dealt), dealt if placing else None)
    for text in actions:
        played = played.apply(text)
    return played


@pytest.fixture
def companion():
    """The phones' pages on a free port of this machine, with nothing published yet."""
    from pi_table.web import Companion  # heavy: imported when a test asks for it

    companion = Companion("127.0.0.1", 0)
    companion.start()
    yield companion
    companion.stop()


@pytest.fixture
def play():
    return _play


@pytest.fixture(scope="module")
def browser(request):
    """Debian's Chromium, driven by Playwright (with the test module's ``CHROMIUM_MORE``
    arguments, if it has any); skipped where either is missing."""
    require_tools(CHROMIUM)
    playwright_api = pytest.importorskip("playwright.sync_api")
    # 15 s for an expectation, not Playwright's 5: Chromium shares two loaded cores with the tables
    playwright_api.expect.set_options(timeout=15_000)
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=[*CHROMIUM_ARGS, *getattr(request.module, "CHROMIUM_MORE", ())])
        yield browser
        browser.close()


@pytest.fixture
def codex_daemon(tmp_path):
    """The daemon playing Codex under a fake systemd, its phones' pages on a free port."""
    table = CodexTable(tmp_path)
    table.systemd.start()
    yield table
    table.systemd.close()


@pytest.fixture
def codex_in_process(tmp_path):
    """A Codex daemon in this process, its loop in a thread, for what HTTP cannot time."""
    (tmp_path / "config.toml").write_text(CODEX_CONFIG)
    running = InProcessDaemon(tmp_path / "config.toml")
    yield running.daemon
    running.close()


@pytest.fixture
def broker(tmp_path):
    """A Mosquitto of the test's own on a free loopback port (the fleet's tests)."""
    from pi_table.fleet.broker import LocalBroker, mosquitto

    require_tools(also_missing=() if mosquitto() else ("mosquitto (Debian: apt install mosquitto)",))
    broker = LocalBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.stop()


# --- the tiers ------------------------------------------------------------------------------------

HEAVY = ("container", "browser", "broker", "daemon", "tool", "slow", "emulated_pi")
"""The markers (registered in pyproject.toml) of what the fast tier leaves out: a test that boots a
container, drives Chromium, runs Mosquitto, starts the table's daemon, runs an outside program, or
takes seconds by itself. A test file marks what its own tests start (``pytestmark``, or a mark on
the test); the fixtures below are marked here, for every test that uses them."""

FIXTURES = {
    "browser": "browser", "broker": "broker", "codex_daemon": "daemon", "codex_in_process": "daemon",
    "container": "container", "built": "tool", "oldest": "tool",
}
"""The fixtures that start something, and the tier of every test that uses one (itself or through
another fixture): this file's, and the module-scoped ones of test_container.py (the booted
container), test_enclosure.py (OpenSCAD's renders) and test_min_versions.py (pip's venv of the
oldest releases). Fixtures named alike in several files (a ``table``, a ``service``) are no guide:
those files mark their tests themselves."""

def pytest_addoption(parser) -> None:
    parser.addoption("--fast", action="store_true",
                     help=f"the fast tier: leave out every test marked {', '.join(HEAVY)} (./dev test; --all runs all)")


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the tests that use a fixture of FIXTURES with its tier; with --fast, leave out every
    heavy tier."""
    for item in items:
        for fixture, tier in FIXTURES.items():
            if fixture in item.fixturenames:
                item.add_marker(tier)
    if config.getoption("fast"):
        heavy = [item for item in items if any(item.get_closest_marker(tier) for tier in HEAVY)]
        if heavy:
            config.hook.pytest_deselected(items=heavy)
            left_out = set(heavy)
            items[:] = [item for item in items if item not in left_out]


# --- the syntax trees ---------------------------------------------------------------------------------

@pytest.fixture(autouse=True, scope="module")
def parsed_trees_per_file():
    """What ``helpers.parsed`` kept lives as long as the test file that read it."""
    yield
    forget_parsed()


# --- the secrets' work ---------------------------------------------------------------------------------

TESTS_SCRYPT_N = 2**10


@pytest.fixture(autouse=True)
def cheap_secret_work(request, monkeypatch) -> None:
    """A PIN or a passphrase a test keeps in this process is hashed with a sixteenth of the table's
    scrypt work (``TESTS_SCRYPT_N``): the table checks a hash by the work the hash names
    (``auth.secret_matches``), so the same code checks it, in 4 ms instead of 70, and 400 logins
    were a seventh of the fast tier's time. A test marked ``secret_work`` keeps the table's own
    work, as the test of what the table keeps does; a table in its own process (``pi-table run``)
    always does."""
    if request.node.get_closest_marker("secret_work") is None:
        from pi_table.web import auth

        monkeypatch.setattr(auth, "SCRYPT_N", TESTS_SCRYPT_N)


# --- the trials' steady time -------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def short_steady_trials(monkeypatch) -> None:
    """A trial is kept once its table has been healthy for ``trial.STEADY_S`` (half a minute) on
    the service; the tests' tables, restarted many times, keep it after a second of health
    (``PI_TABLE_TRIAL_STEADY_S``, which their ``pi-table run`` inherits). A test of the steady
    time sets its own."""
    from pi_table.daemon.trial import STEADY_VARIABLE

    monkeypatch.setenv(STEADY_VARIABLE, "1")


# --- Hypothesis --------------------------------------------------------------------------------------

EXAMPLES = {
    "frames": (30, 300),
    "games": (10, 120),
    "tables": (6, 60),
    "codex games": (3, 40),
    "codex sweeps": (2, 12),
    "phones": (2, 10),
    "adversaries": (3, 15),
    "lifecycles": (2, 6),
    "nights": (2, 20),
    "nights on a broker": (2, 12),
}
"""Examples per property test, (quick, thorough), by what one example costs: a wire message or an
LED frame (microseconds); a whole grid game; a game through the table loop, its journal or the
touch board's serial link; a whole Codex game, its views compared at every step; a Codex game with
every action of the universe tried at every step; a Codex game on the phones' pages; a table under
attack, built and restarted as the service starts it, for a sequence of requests; the owner's
lifecycle on such a table, each reset restarting it; a game night on three tables, a director's
forty steps; the same night through a real Mosquitto, each step waiting for the broker to settle
every table, thirty steps. A test takes
its kind's as ``@settings(settings.get_profile("games"))``; one that names no kind, Hypothesis's
own default of 100 (10 in the quick profile). No test sets max_examples itself: a test's own
beats every profile."""

EMULATED_SHARE = 10
"""Under emulation (the arm64 check) each property test tries a tenth of its thorough examples: the
same properties on arm64, in minutes."""

PROFILES = ("quick", "thorough", "emulated")
PROFILE = os.environ.get("PI_TABLE_HYPOTHESIS", "quick")
"""The Hypothesis profile: quick (the default, and ./dev test's), thorough (./dev test --all, so
.ci/run) or emulated (tests/arm64/check)."""
if PROFILE not in PROFILES:
    raise pytest.UsageError(f"PI_TABLE_HYPOTHESIS is one of {', '.join(PROFILES)}, not {PROFILE!r}")


def _examples(profile: str, quick: int, thorough: int) -> int:
    return {"quick": quick, "thorough": thorough, "emulated": max(3, thorough // EMULATED_SHARE)}[profile]


# No deadline: a loaded machine, two xdist workers on two cores or an emulator stretch any example.
for _profile in PROFILES:
    settings.register_profile(_profile, deadline=None, max_examples=_examples(_profile, 10, 100),
                              print_blob=_profile != "quick")
settings.load_profile(PROFILE)
for _kind, _budget in EXAMPLES.items():
    settings.register_profile(_kind, max_examples=_examples(PROFILE, *_budget))


# --- no skip under PI_TABLE_REQUIRE_TOOLS ----------------------------------------------------------

def _required(report) -> None:
    """Under PI_TABLE_REQUIRE_TOOLS (.ci/run), a skip, however made, fails: CI never goes green with a
    part untested."""
    if REQUIRE_TOOLS and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped where every test must run (PI_TABLE_REQUIRE_TOOLS=1): {reason.removeprefix('Skipped: ')}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    _required(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    _required(report)
    return report


def pytest_report_header(config) -> str:
    return f"pi-table: Hypothesis profile {PROFILE} (PI_TABLE_HYPOTHESIS)" + (
        "; a skip fails (PI_TABLE_REQUIRE_TOOLS)" if REQUIRE_TOOLS else "")


def pytest_terminal_summary(terminalreporter, config) -> None:
    if config.getoption("fast"):
        terminalreporter.write_line(f"the fast tier: tests marked {', '.join(HEAVY)} were left out; "
                                    "./dev test --all runs every test")
