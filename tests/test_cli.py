"""The command line as users and scripts call it: the scripted-simulator contract, keys."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

STATE_FIELDS = {
    "game", "turn", "phase", "clue", "guesses_left", "remaining", "board", "winner", "losers", "reason", "score",
    "armed",
}
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def pi_table(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "pi_table", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def sim_json(tmp_path, script, *options):
    path = tmp_path / "game.txt"
    path.write_text(script)
    done = pi_table("sim", *options, "--script", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_script_output_follows_the_contract(tmp_path):
    lines = sim_json(tmp_path, "clue 2\n# a comment\n\ntouch 0  # red agent\ntouch 0\nend-turn\n", "--key", KEY)
    assert [line["step"] for line in lines] == [0, 1, 2, 3, 4]
    assert lines[0]["input"] is None and lines[0]["state"]["phase"] == "clue"
    for line in lines:
        assert STATE_FIELDS <= set(line["state"])
    assert [line["input"] for line in lines[1:]] == ["clue 2", "touch 0", "touch 0", "end-turn"]
    assert lines[2]["state"]["board"] == "R" + "?" * 24
    assert lines[2]["state"]["remaining"] == {"red": 8, "blue": 8}
    assert lines[2]["state"]["guesses_left"] == 2
    refused = lines[3]
    assert refused["ok"] is False and refused["error"] == "card 0 is already revealed"
    assert refused["state"] == lines[2]["state"]
    assert lines[4]["ok"] is True and lines[4]["state"]["turn"] == "blue"


def test_a_touch_without_a_clue_starts_an_unlimited_turn(tmp_path):
    lines = sim_json(tmp_path, "touch 0\n", "--key", KEY)
    assert lines[1]["state"]["phase"] == "guess"
    assert lines[1]["state"]["clue"] is None and lines[1]["state"]["guesses_left"] is None


def test_clue_required_refuses_a_touch_first(tmp_path):
    lines = sim_json(tmp_path, "touch 0\nclue infinity\ntouch 0\n", "--key", KEY, "--clue-required")
    assert lines[1]["ok"] is False and "clue number" in lines[1]["error"]
    assert lines[2]["state"]["clue"] == "unlimited"
    assert lines[3]["ok"] is True


def test_seeded_games_are_reproducible(tmp_path):
    first = sim_json(tmp_path, "touch 3\nnew-game\ntouch 4\n", "--seed", "42")
    again = sim_json(tmp_path, "touch 3\nnew-game\ntouch 4\n", "--seed", "42")
    assert first == again


@pytest.mark.parametrize(
    "script, line, words",
    [
        ("clue 2\ntuch 3\n", 2, "the commands are clue, touch, end-turn,"),
        ("clue two\n", 1, "whole number"),
        ("# ok\ntouch 25\n", 2, "the grid's cells are 0 to 24"),
        ("clue 1\n\nclue -1\n", 3, "whole number"),
        ("touch\n", 1, "one argument"),
    ],
)
def test_a_malformed_script_exits_2_naming_the_line(tmp_path, script, line, words):
    path = tmp_path / "bad.txt"
    path.write_text(script)
    done = pi_table("sim", "--script", str(path), "--json")
    assert done.returncode == 2
    assert done.stdout == ""  # nothing runs before the whole script is read
    assert f"bad.txt:{line}:" in done.stderr and words in done.stderr


def test_alias24_and_the_coop_variant_from_the_command_line(tmp_path):
    key = "RRRRRRRRRBBB.BBBBBNNNNNNA"  # red holds 9 assets, so blue starts
    lines = sim_json(tmp_path, "clue 1\ntouch 0\ntouch 1\n", "--game", "alias24", "--nuke", "mad", "--key", key)
    assert lines[0]["state"]["turn"] == "blue" and lines[0]["state"]["armed"] is False
    assert lines[3]["state"]["turn"] == "red" and lines[3]["state"]["remaining"]["red"] == 7
    coop = sim_json(tmp_path, "touch 17\ncover 9\n", "--game", "codenames-coop", "--key", KEY)
    assert coop[1]["state"]["phase"] == "cover" and coop[1]["state"]["turn"] == "blue"
    assert coop[2]["state"]["phase"] == "clue" and coop[2]["state"]["remaining"]["blue"] == 7


def test_bad_options_exit_2_with_a_clear_message():
    done = pi_table("sim", "--key", "RRR", "--script", "-", "--json", stdin="")
    assert done.returncode == 2 and "--key" in done.stderr and "25 characters" in done.stderr
    done = pi_table("sim", "--key", KEY, "--start", "blue", "--script", "-", "--json", stdin="")
    assert done.returncode == 2 and "red starts" in done.stderr
    done = pi_table("sim", "--start", "green")
    assert done.returncode == 2 and "'red' or 'blue'" in done.stderr
    done = pi_table("sim", "--json")
    assert done.returncode == 2 and "--script" in done.stderr


def test_key_prints_json_lines():
    done = pi_table("key", "--game", "alias24", "--seed", "7", "--count", "5")
    assert done.returncode == 0
    keys = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(keys) == 5
    for key in keys:
        assert set(key) == {"game", "key", "start"} and key["game"] == "alias24"
        assert len(key["key"]) == 25 and key["key"][12] == "."
        big = "red" if key["key"].count("R") == 9 else "blue"
        assert key["start"] != big  # the team with more to eliminate starts
    assert pi_table("key", "--game", "alias24", "--seed", "7", "--count", "5").stdout == done.stdout


def test_script_from_standard_input_in_text_form():
    done = pi_table("sim", "--key", KEY, "--script", "-", "--color", "never", stdin="clue 1\ntouch 24\n")
    assert done.returncode == 0, done.stderr
    assert "game over: BLUE wins (red touched the assassin)" in done.stdout
    assert "\x1b[" not in done.stdout


def test_a_reader_that_stops_early_ends_the_command_quietly():
    """`pi-table sim --script ... | head -2`: the pipe closes under the simulator."""
    script = "".join(f"touch {cell}\nundo\n" for cell in range(9)) * 20
    child = subprocess.Popen([sys.executable, "-m", "pi_table", "sim", "--key", "RRRRRRRRRBBBBBBBBNNNNNNNA",
                              "--script", "-", "--json"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    child.stdin.write(script.encode())
    child.stdin.close()
    assert child.stdout.readline().startswith(b'{"step": 0') and child.stdout.readline()
    child.stdout.close()  # as head does after two lines
    assert child.wait(timeout=30) == 141  # as the shell's tools end on a closed pipe: 128 + SIGPIPE
    assert child.stderr.read() == b""


@pytest.mark.parametrize("options, given, owner, own", [
    (["--game", "codenames", "--dark-cell", "5"], "--dark-cell", "alias24", "--clue-required, --three-player, --setup"),
    (["--game", "codenames-coop", "--nuke", "mad"], "--nuke", "alias24", "--clue-required"),
    (["--game", "alias24", "--three-player"], "--three-player", "codenames", "--clue-required, --nuke, --dark-cell"),
])
def test_another_games_option_is_refused_naming_the_games_own(tmp_path, options, given, owner, own):
    """Issue 52.9: an option of other games, which this one's rules would leave unread (Codenames
    with Alias 24's dark cell played with no dark cell at all), is a usage error naming the game's
    own options, as its description offers them; its own are taken."""
    path = tmp_path / "game.txt"
    path.write_text("clue 1\n")
    done = pi_table("sim", *options, "--script", str(path), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert f"{given}: an option of {owner}; {options[1]} takes {own}" in done.stderr, done.stderr
    assert sim_json(tmp_path, "clue 1\n", "--game", "alias24", "--dark-cell", "5", "--nuke", "mad", "--seed", "1")[0][
        "state"]["board"][5] == "."


def test_argparses_frame_speaks_the_tables_language(tmp_path):
    """Issue 63, item 3: "usage: … error: …" around an Italian reason was English; argparse's own
    words come from the catalogue when the command line (--lang) or the table's configuration
    speaks Italian, and stay English otherwise."""
    done = pi_table("sim", "--lang", "it", "--start", "green")
    assert done.returncode == 2 and done.stderr.startswith("uso: pi-table"), done.stderr
    assert "pi-table: errore: --start: una squadra è 'rossa' o 'blu'" in done.stderr and "usage:" not in done.stderr
    done = pi_table("sim", "--lang=it", "--bogus")
    assert done.returncode == 2 and "errore: argomenti non riconosciuti: --bogus" in done.stderr, done.stderr
    config = tmp_path / "config.toml"
    config.write_text('[game]\nlanguage = "it"\n')
    done = pi_table("history", "--config", str(config), "--lang", "xx")
    assert done.returncode == 2 and done.stderr.startswith("uso: pi-table history"), done.stderr
    assert "argomento --lang: scelta non valida: 'xx' (scegliere tra 'en', 'it')" in done.stderr
    done = pi_table("history", "--config", str(config), "--json", "extra")
    assert "errore: argomenti non riconosciuti: extra" in done.stderr, done.stderr
    done = pi_table("sim", "--bogus")
    assert done.returncode == 2 and done.stderr.startswith("usage: pi-table") and "error: unrecognized" in done.stderr
