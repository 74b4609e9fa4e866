"""The simulators a person plays deal words by default, in the simulator's language, so there is
something to give a clue about from the first game; ``--words none`` gives numbers alone, and a
script keeps numbers unless it asks (its lines are compared, and a deal draws on --seed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pi_table.ui.words import load_words

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def played(*options: str) -> str:
    """What the terminal simulator prints before it is told to quit."""
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--key", KEY, "--color", "never", *options],
                          input="quit\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def dealt(out: str, lang: str) -> set[str]:
    """The words of the ``lang`` list the output shows (a prompt's own words are a handful at most)."""
    return set(out.split()) & set(load_words(lang))


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_terminal_deals_the_simulators_language_by_default(lang):
    assert len(dealt(played("--lang", lang), lang)) >= 25


def test_words_none_gives_numbers_alone():
    out = played("--words", "none")
    assert len(dealt(out, "en")) < 5 and " 24 " in out


def test_a_deck_named_on_the_command_line_is_dealt_as_before():
    assert len(dealt(played("--words", "it"), "it")) >= 25


def script(tmp_path, *options: str) -> list[dict]:
    path = tmp_path / "game.txt"
    path.write_text("clue 1\n")
    done = subprocess.run([sys.executable, "-m", "pi_table", "sim", "--key", KEY, "--seed", "2", "--script", str(path),
                           "--json", *options], capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_script_keeps_numbers_unless_it_asks(tmp_path):
    assert all("words" not in line for line in script(tmp_path))
    assert len(script(tmp_path, "--words", "en")[0]["words"]) == 25
