"""Fixtures shared by several test files (the engine tests' game, a browser, a Codex daemon);
under emulation, fewer examples for the property tests.

The heavy imports (playwright, the daemon) are made inside the fixtures: the arm64 check runs
only the engine, protocol and simulation tests, without them."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

import pytest

from pi_table.engine import Game, Key, Rules, State, Team, make_game, parse_action

from helpers import CHROMIUM, CHROMIUM_ARGS, CODEX_CONFIG, CodexTable, require_tools, with_drawn_key


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
def play():
    return _play


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, driven by Playwright; skipped where either is missing."""
    require_tools(CHROMIUM)
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
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
    from pi_table.config import load_config
    from pi_table.daemon.run import Daemon

    (tmp_path / "config.toml").write_text(CODEX_CONFIG)
    daemon = Daemon(load_config(tmp_path / "config.toml"), hal="sim")
    daemon.start()
    runner = threading.Thread(target=daemon.run, daemon=True)
    runner.start()
    assert daemon.wait_for_phones()  # the companion opens once the table is up
    yield daemon
    daemon.stop()
    runner.join(timeout=5)
    daemon.close()
    assert not runner.is_alive()


EMULATOR = os.environ.get("PI_TABLE_EMULATOR", "")
"""The emulator the tests run under, set by tests/arm64/check (qemu-aarch64); empty elsewhere."""

EMULATED_SHARE = 10
"""Under emulation each property test tries a tenth of its examples: the same properties on arm64, in minutes."""


@pytest.fixture
def broker(tmp_path):
    """A Mosquitto of the test's own on a free loopback port (the fleet's tests)."""
    from pi_table.fleet.broker import LocalBroker, mosquitto

    require_tools(also_missing=() if mosquitto() else ("mosquitto (Debian: apt install mosquitto)",))
    broker = LocalBroker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.stop()


def pytest_terminal_summary(terminalreporter) -> None:
    if EMULATOR:
        terminalreporter.write_line(
            f"under {EMULATOR} emulation: property tests tried 1/{EMULATED_SHARE} of their examples, with no deadline")


def pytest_collection_modifyitems(items) -> None:
    """Under emulation, give each property test a share of its examples and no deadline.

    A test's own ``@settings(max_examples=...)`` beats any Hypothesis profile, so the share is set
    on the settings Hypothesis reads from the ``@given`` wrapper when the test runs."""
    if not EMULATOR:
        return
    from hypothesis import settings

    for test in {id(item.obj): item.obj for item in items if hasattr(item, "obj")}.values():
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None:
            test._hypothesis_internal_use_settings = settings(
                own, max_examples=max(3, own.max_examples // EMULATED_SHARE), deadline=None)
