"""Small helpers shared by several test files."""

from __future__ import annotations

import json
import os
import random
import shutil
import time

import pytest

from pi_table.engine import Action, Game, Key, Place, State, parse_action


def with_drawn_key(game: Game, state: State, action: Action, key: Key | None) -> Action:
    """Deep Undercover's last placement carries the key, drawn as it goes down: ``key`` plays the
    session's draw."""
    if isinstance(action, Place) and action.key is None and game.draws_key(state):
        return Place(action.cell, key)
    return action


def played(game: Game, key: Key, texts=()) -> State:
    """``game`` on ``key`` after each action text; Deep Undercover starts without a key, and
    ``key`` comes with its last placement."""
    state = game.start(None if game.rules.setup == "place" else key)
    for text in texts:
        state = game.apply(state, with_drawn_key(game, state, parse_action(text), key))
    return state


def wait_for(condition, what: str, timeout: float = 5.0) -> None:
    """Poll ``condition`` until it holds; fail the test, naming ``what``, after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


def hidden_swapped(key: str, board: str, rng: random.Random) -> str:
    """Another key that agrees on every shown cell: the identities of the hidden ones shuffled."""
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"]
    letters = [key[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(key)
    for cell, letter in zip(hidden, letters):
        cells[cell] = letter
    return "".join(cells)


REQUIRE_TOOLS = os.environ.get("PI_TABLE_REQUIRE_TOOLS") == "1"
"""Set by .ci/run, which installs every tool: there a missing one fails the test, not skips it."""


def require_tools(*commands: str, also_missing: tuple[str, ...] = ()) -> None:
    """Skip the test when a system command it drives is missing (fail under .ci/run).

    ``also_missing`` names other prerequisites the caller found missing (a Python module)."""
    missing = [name for name in commands if shutil.which(name) is None] + list(also_missing)
    if not missing:
        return
    words = ", ".join(missing)
    if REQUIRE_TOOLS:
        pytest.fail(f"{words} required here (PI_TABLE_REQUIRE_TOOLS=1) but not installed")
    pytest.skip(f"{words} not installed")


def record_untranslated(monkeypatch, *targets: str) -> list[str]:
    """Make the Italian catalogue record every msgid it lacks, for code that looks up its
    translation through ``targets`` (dotted names of ``translation`` functions); the list fills
    as the code draws."""
    import gettext

    from pi_table.ui import i18n

    missed: list[str] = []

    class Recorder(gettext.NullTranslations):
        def gettext(self, message):
            missed.append(message)
            return message

    catalogue = gettext.translation(i18n.DOMAIN, localedir=i18n.LOCALE_DIR, languages=["it"])
    catalogue.add_fallback(Recorder())
    for target in targets:
        monkeypatch.setattr(target, lambda lang: catalogue)
    return missed


def next_event(response) -> tuple[str, dict]:
    """The next server-sent event on ``response`` (its kind and data), read line by line as a
    browser's EventSource reads it."""
    kind, data = "message", None
    while True:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            return kind, data


def electrode_of(cell: int) -> int:
    """The electrode under ``cell``'s pad in the reference wiring, which a configuration without
    [touch] cell_electrodes uses: the emulator is pressed by electrode, as a board is."""
    from pi_table.hardware import pinout

    return pinout.load().cell_electrodes[cell]
