"""The configuration file: a mistake in it, or a value that cannot work on this machine, is
refused before the table starts (`check-config` and `run` exit 78), every problem at once, each
named with the file, the key, what was expected and what was found; never a traceback."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pi_table import cli
from pi_table import config as config_module
from pi_table.config import OPTIONS, trial, writing

from helpers import require_tools

EXIT_CONFIG = 78

# A configuration that works on any machine a test runs on: the game files and the socket in
# the test's folder, the companion on this machine only, the socket keeping the user's group.
GOOD = {
    "web": {"host": '"127.0.0.1"', "port": "0"},
    "paths": {"journal_dir": '"journal"', "socket": '"control.sock"', "socket_group": '""'},
}


def toml(sections: dict[str, dict[str, str]]) -> str:
    """A TOML file from {section: {name: TOML literal}}."""
    return "".join(
        f"[{section}]\n" + "".join(f"{name} = {value}\n" for name, value in names.items())
        for section, names in sections.items()
    )


def write(folder: Path, changes: dict[str, str], name: str = "config.toml") -> Path:
    """GOOD with ``changes`` ({"section.name": TOML literal}) made, written in ``folder``."""
    sections = {section: dict(names) for section, names in GOOD.items()}
    for key, value in changes.items():
        section, _, option = key.partition(".")
        sections.setdefault(section, {})[option] = value
    path = folder / name
    path.write_text(toml(sections), encoding="utf-8")
    return path


def pi_table(*args: str, prefix: tuple[str, ...] = (), timeout: float = 20) -> subprocess.CompletedProcess:
    """The command in its own process; one that is still running after ``timeout`` started the
    table instead of refusing it."""
    try:
        return subprocess.run([*prefix, sys.executable, "-m", "pi_table", *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pi-table {' '.join(args)} was still running after {timeout} s: it started, not refused")


def refused_by_both(path: Path) -> list[str]:
    """check-config's and run's complaints about ``path``; both exit 78, run before it starts."""
    check = pi_table("check-config", str(path))
    assert check.returncode == EXIT_CONFIG, check.stdout + check.stderr
    run = pi_table("run", "--hal", "sim", "--config", str(path))
    assert run.returncode == EXIT_CONFIG, run.stderr
    assert "Traceback" not in check.stderr + run.stderr
    assert check.stderr.replace("check-config", "run") == run.stderr  # the same checks, the same words
    return check.stderr.splitlines()


def one_problem(lines: list[str], path: Path, key: str) -> str:
    [line] = lines
    assert f"{path}: {key}: expected " in line and ", found " in line, line
    return line


# Values that cannot work on this machine ----------------------------------------------------

def test_a_journal_dir_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "games").write_text("not a folder")
    path = write(tmp_path, {"paths.journal_dir": '"games"'})
    line = one_problem(refused_by_both(path), path, "paths.journal_dir")
    assert f"a file: {tmp_path / 'games'}" in line
    assert not (tmp_path / "control.sock").exists()  # nothing started


def test_a_journal_dir_that_cannot_be_made_is_refused(tmp_path):
    (tmp_path / "afile").write_text("")
    path = write(tmp_path, {"paths.journal_dir": '"afile/sub/games"'})
    line = one_problem(refused_by_both(path), path, "paths.journal_dir")
    assert f"{tmp_path / 'afile'} is a file" in line and "cannot be made" in line
    assert not (tmp_path / "control.sock").exists()


def test_a_socket_in_a_folder_that_cannot_be_made_is_refused(tmp_path):
    (tmp_path / "afile").write_text("")
    path = write(tmp_path, {"paths.socket": '"afile/run/control.sock"'})
    line = one_problem(refused_by_both(path), path, "paths.socket")
    assert f"{tmp_path / 'afile'} is a file" in line and "cannot be made" in line
    assert not (tmp_path / "journal").exists()  # nothing started


def test_a_socket_path_taken_by_a_file_is_refused(tmp_path):
    (tmp_path / "control.sock").write_text("a file, not a socket")
    path = write(tmp_path, {})
    line = one_problem(refused_by_both(path), path, "paths.socket")
    assert "not a socket" in line
    assert not (tmp_path / "journal").exists()


def test_a_socket_group_that_does_not_exist_is_refused(tmp_path):
    path = write(tmp_path, {"paths.socket_group": '"no-such-group-pi-table"'})
    line = one_problem(refused_by_both(path), path, "paths.socket_group")
    assert "'no-such-group-pi-table'" in line and "no group" in line
    assert not (tmp_path / "journal").exists() and not (tmp_path / "control.sock").exists()


@pytest.mark.parametrize("host, found", [
    ("192.0.2.7", "not an address of this machine"),  # TEST-NET-1: nobody's address
    ("no-such-table.invalid", "expected an IP address of this machine written in numbers"),  # a name is no address
])
def test_a_web_host_that_is_not_this_machine_is_refused(tmp_path, host, found):
    path = write(tmp_path, {"web.host": f'"{host}"'})
    line = one_problem(refused_by_both(path), path, "web.host")
    assert f"'{host}'" in line and found in line
    assert not (tmp_path / "journal").exists() and not (tmp_path / "control.sock").exists()


def listens_on_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::", 0))
    except OSError:
        return False
    return True


def test_addresses_of_this_machine_and_every_network_are_accepted(tmp_path):
    hosts = ["127.0.0.1", "0.0.0.0", "localhost"]
    hosts += ["::"] if listens_on_ipv6() else []
    for host in hosts:
        path = write(tmp_path, {"web.host": f'"{host}"'})
        assert config_module.check_machine(config_module.load_config(path).values) == [], host
    assert cli.main(["check-config", str(path)]) == 0


def test_a_host_is_not_checked_when_the_companion_is_off(tmp_path):
    path = write(tmp_path, {"web.host": '"192.0.2.7"', "web.enabled": "false"})
    assert config_module.check_machine(config_module.load_config(path).values) == []


def test_a_journal_dir_that_holds_folders_is_someone_elses_and_refused(tmp_path):
    """Found when the staff fuzz set paths.journal_dir = "/" as root: the table made / and every
    folder in it 0700, and every file 0600. A journal folder holds the table's files alone."""
    shared = tmp_path / "shared"
    (shared / "someone's").mkdir(parents=True)
    for folder, name in ((str(shared), "someone's"), ("/", None)):
        path = write(tmp_path, {"paths.journal_dir": f'"{folder}"'}, name="journal.toml")
        with pytest.raises(config_module.ConfigError) as refused:
            config_module.load_config(path, machine=True)
        (problem,) = [p for p in refused.value.problems if "paths.journal_dir" in p]
        assert "so it is not a folder of the table's own" in problem and (name is None or f"({name})" in problem)


def test_a_journal_dir_the_user_may_not_write_in_is_refused():
    """As root, permissions stop nothing: run the commands as nobody, in a folder nobody may read."""
    if os.getuid() == 0:
        require_tools("setpriv")
        prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    else:
        prefix = ()
    folder = Path(tempfile.mkdtemp(prefix="pi-table-config-"))
    try:
        (folder / "journal").mkdir()
        (folder / "run").mkdir()
        cases = [(write(folder, {"paths.journal_dir": f'"{journal}"', "paths.socket": '"run/control.sock"'},
                        name=f"{journal.replace('/', '-')}.toml"), words)
                 for journal, words in (("journal", "may not write in it"), ("missing/games", "cannot be made"))]
        for path, _ in cases:
            path.chmod(0o644)
        (folder / "run").chmod(0o700)  # the socket's folder is the one place the user may write in
        if prefix:
            os.chown(folder / "run", 65534, 65534)
        (folder / "journal").chmod(0o555)
        folder.chmod(0o555)
        for path, words in cases:
            for command in (["check-config", str(path)], ["run", "--hal", "sim", "--config", str(path)]):
                done = pi_table(*command, prefix=prefix)
                assert done.returncode == EXIT_CONFIG, done.stderr
                line = one_problem(done.stderr.splitlines(), path, "paths.journal_dir")
                assert words in line, line
            assert not (folder / "run/control.sock").exists()
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def test_a_journal_dir_on_a_read_only_file_system_is_refused(tmp_path):
    """What the unit's ProtectSystem=strict makes of every folder but its own."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,mode=0755", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only file system here: {mounted.stderr.strip()}")
    try:
        path = write(tmp_path, {"paths.journal_dir": '"readonly"'})
        line = one_problem(refused_by_both(path), path, "paths.journal_dir")
        assert "may not write in it (a read-only file system here)" in line
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_run_without_a_file_does_not_check_the_machine(monkeypatch, tmp_path):
    """Without a configuration file the defaults name /var/lib and a group pi-table that a
    developer's machine does not have; the daemon plays on there, the game kept in memory."""
    monkeypatch.setattr(config_module, "DEFAULT_PATH", tmp_path / "absent.toml")
    served = []
    monkeypatch.setattr("pi_table.daemon.run.serve", lambda config, hal, port, under_trial: served.append(config) or 0)
    assert cli.main(["run", "--hal", "sim"]) == 0
    assert served and served[0].source is None
    assert config_module.check_machine(served[0].values) != [] or os.getuid() == 0  # as a developer they would fail


# Several mistakes at once ----------------------------------------------------------------------

def test_every_mistake_in_a_file_is_reported_at_once(tmp_path):
    (tmp_path / "afile").write_text("")
    path = write(tmp_path, {
        "timer.length_s": "30", "timer.warn_s": "60",  # each fine alone; wrong together
        "game.hold_s": "9",  # out of range
        "game.langage": '"it"',  # unknown key
        "leds.brightness": '"high"',  # wrong type
        "paths.journal_dir": '"afile"',  # cannot work on this machine
    })
    lines = refused_by_both(path)
    said = "\n".join(lines)
    for words in ("timer.length_s and timer.warn_s together", "game.hold_s", "game.langage", "leds.brightness",
                  "paths.journal_dir"):
        assert words in said, f"{words!r} not reported:\n{said}"
    assert len(lines) == 5 and all(line.startswith(f"pi-table check-config: {path}: ") for line in lines)


def test_mistakes_in_two_sections_that_are_each_only_wrong_together_are_both_reported(tmp_path):
    path = write(tmp_path, {
        "timer.length_s": "30", "timer.warn_s": "60",
        "game.hold_s": "2", "touch.stuck_s": "1",  # stuck_s must be over hold_s
        "web.port": "80",
    })
    with pytest.raises(config_module.ConfigError) as refused:
        config_module.load_config(path)
    said = "\n".join(refused.value.problems)
    assert "timer.length_s and timer.warn_s together" in said and "web.port" in said
    assert "hold_s" in said and "stuck_s" in said, said
    assert len(refused.value.problems) == 3


@pytest.mark.parametrize("changes", [{"fleet.league": '"spring"'}, {"fleet.cafe": '"bar-roma"'}])
def test_a_league_and_the_cafes_name_in_it_go_together(tmp_path, changes):
    """Issue 64: a café sends its nights to a league under its own name, so neither is set alone."""
    with pytest.raises(config_module.ConfigError) as refused:
        config_module.load_config(write(tmp_path, changes))
    assert "league and cafe go together" in "\n".join(refused.value.problems)
    both = config_module.load_config(write(tmp_path, {"fleet.league": '"spring"', "fleet.cafe": '"bar-roma"'}))
    assert (both.fleet.league, both.fleet.cafe) == ("spring", "bar-roma")


# Fuzz: many bad files, each refused with the key named --------------------------------------

WRONG_TYPE = {
    "str": ["7", "true", "[1]"], "path": ["5", "false"], "machine": ["5", "false"], "usb_id": ["0x239A", '"239A"', '"zz:80F4"'],
    "bool": ['"yes"', "1", "0.0"], "int": ["2.5", '"3"', "true"], "number": ['"fast"', "[1]", "nan", "inf"],
    "pin": ["true", '"17"', "1.5"], "int_list": ['"1,2"', "[1, 2.0]", "[true]"], "int_lists": ["[1, 2]", '[["a"]]'],
    "str_list": ['"t1 t2"', "[1]", '[["t1"]]'],
    "device": ["7", "false"], "file": ["[1]", "true"], "secret": ["[1]", "true"], "deck": ["1"], "group": ["5"], "address": ["0"],
    "url": ["8024"], "broker": ["1883"],
}
OUT_OF_RANGE = [
    ("game.game", '"chess"'), ("game.nuke", '"big"'), ("game.setup", '"shuffle"'), ("game.dark_cell", "25"),
    ("game.language", '"fr"'), ("game.hold_s", "-1"), ("game.hold_s", "9"), ("game.discussion_s", "5"),
    ("timer.length_s", "5"), ("timer.length_s", "4000"), ("timer.warn_s", "-1"), ("touch.port", '""'),
    ("touch.cell_electrodes", "[0, 1, 2]"), ("touch.cell_electrodes", "[]"), ("touch.end_turn", "[0]"),
    ("touch.stuck_s", "9000"), ("leds.backend", '"neopixel"'), ("leds.pin", "3"), ("leds.order", '"XYZ"'),
    ("leds.brightness", "2"), ("leds.gamma", "0.5"), ("leds.current_limit_ma", "1"), ("leds.leds_per_cell", "0"),
    ("leds.offset", "-3"), ("leds.cells", "[[0], [1]]"), ("leds.edge", "[30, 31]"), ("screen.rotation", "45"),
    ("screen.width", "-1"), ("screen.width", "100"), ("buttons.end_turn", "99"), ("buttons.new_game", "17"),
    ("buttons.encoder_a", "5"), ("buttons.new_game_hold_s", "0"), ("web.port", "80"), ("web.port", "70000"),
    ("web.url", '"table.local"'), ("paths.keep_games", "0"), ("paths.keep_mb", "1e9"),
    ("paths.socket", '"' + "s" * 120 + '"'), ("paths.journal_dir", '""'),
    # numbers far too big: refused before anything the size of them is made
    ("leds.edge_leds", "99999999999999999999"), ("leds.offset", "99999999999999999999"),
    ("leds.cells", "[[" + "], [".join(map(str, [10**15, *range(1, 25)])) + "]]"),
    ("touch.cell_electrodes", str([10**12, *range(1, 25)])), ("web.port", "99999999999999999999"),
    ("sound.volume", "1.5"), ("sound.volume", "-0.1"), ("sound.quiet_hours", '"23:00"'),
    ("sound.quiet_hours", '"25:00-08:00"'), ("sound.quiet_hours", '"8-9"'), ("sound.quiet_hours", '"08:00-08:00"'),
    ("web.request_s", "1.5"), ("web.request_s", "600"), ("fleet.cafe_tables", '["t1", "a/b"]'),
    ("fleet.league", '"spring/2026"'), ("fleet.cafe", '"bar #1"'),
]
UNKNOWN_KEYS = [("game.langage", "1"), ("timer.length", "30"), ("leds.brightnes", "0.5"), ("web.hots", '"x"'),
                ("paths.journal", '"j"'), ("screen.rotate", "0"), ("touch.ports", '"auto"'), ("buttons.end", "17")]
UNKNOWN_SECTIONS = [("lights.brightness", "0.5"), ("Game.hold_s", "1"), ("sounds.volume", "0.5"), ("gamee.x", "1")]
TOGETHER = [  # each key fine alone, wrong with the other
    ({"timer.length_s": "30", "timer.warn_s": "60"}, "timer.length_s and timer.warn_s together"),
    ({"game.hold_s": "2", "touch.stuck_s": "1"}, "game.hold_s and touch.stuck_s together"),
    ({"leds.pin": "18", "buttons.end_turn": "18"}, "leds.pin and buttons.end_turn together"),
]
BAD_TOML = [
    "[game\nhold_s = 1\n", "[game]\nhold_s = \n", "[game]\nlanguage = \"en\n", "[game]\nhold_s = 1\nhold_s = 2\n",
    "[game]\n[game]\n", "hold_s = = 1\n", "[game]\nlanguage = 'it'x\n", "[game]\ndark_cell = 0x\n",
    "[timer]\nlength_s = [1,\n", "[web]\nport = 8024 8025\n", "\x00", "[" * 2000 + "]" * 2000,
]


def fuzz_cases(rng: random.Random) -> list[tuple[str, dict[str, str], list[str]]]:
    """(what, changes, words each complaint must contain) for every single mistake, then
    files that make three of them at once."""
    single = [(f"wrong type {o.key} = {value}", {o.key: value}, [o.key])
              for o in OPTIONS for value in rng.sample(WRONG_TYPE[o.kind], 1)]
    single += [(f"out of range {key} = {value}", {key: value}, [key]) for key, value in OUT_OF_RANGE]
    single += [(f"unknown key {key}", {key: value}, [f"unknown key {key}"]) for key, value in UNKNOWN_KEYS]
    single += [(f"unknown section {key}", {key: value}, [f"unknown section [{key.partition('.')[0]}]"])
               for key, value in UNKNOWN_SECTIONS]
    together = [(f"together: {words}", changes, [words]) for changes, words in TOGETHER]
    single += together
    several = []
    for number in range(15):
        picks: list[tuple] = together[number:number + 1]  # the first files hide one among others
        while len(picks) < 3:
            case = rng.choice(single)
            if not any(key in pick[1] for pick in picks for key in case[1]):
                picks.append(case)
        several.append(("several: " + "; ".join(c[0] for c in picks),
                        {k: v for c in picks for k, v in c[1].items()}, [w for c in picks for w in c[2]]))
    return single + several


def test_a_hundred_bad_files_are_each_refused_naming_the_key(tmp_path, capsys):
    cases = fuzz_cases(random.Random(12))
    tried = refused = 0
    failures = []
    for number, (what, changes, words) in enumerate(cases):
        path = write(tmp_path, changes, name=f"bad{number}.toml")
        tried += 1
        code = cli.main(["check-config", str(path)])  # an exception here is the traceback a user would see
        said = capsys.readouterr().err
        if code == EXIT_CONFIG and all(w in said for w in words) and str(path) in said:
            refused += 1
        else:
            failures.append(f"{what}: exit {code}: {said.strip() or '(nothing said)'}")
    for number, text in enumerate(BAD_TOML):
        path = tmp_path / f"toml{number}.toml"
        path.write_text(text, encoding="utf-8")
        tried += 1
        code = cli.main(["check-config", str(path)])
        said = capsys.readouterr().err
        if code == EXIT_CONFIG and f"{path}: " in said and ("not valid TOML" in said or "nested" in said):
            refused += 1
        else:
            failures.append(f"bad TOML {text[:30]!r}: exit {code}: {said.strip()}")
    print(f"fuzz: {tried} bad files tried, {refused} refused naming the key")
    assert tried >= 100
    assert not failures, "\n".join(failures)


def mutated(text: str, rng: random.Random) -> str:
    """``text`` with one to four lines changed: a value swapped for a stranger one, a character
    overwritten, a line dropped or a stray line put in."""
    lines = text.splitlines()
    values = ["-1", "0", "1e300", "-0.0", "99999999999999999999", "1000000000", '""', '"x"', "[]", "[[]]", "{}",
              "true", "[1, 2, 3]", "[[1], [1]]"]
    for _ in range(rng.randint(1, 4)):
        n = rng.randrange(len(lines))
        line, choice = lines[n], rng.random()
        if choice < 0.3 and " = " in line:
            lines[n] = line.partition(" = ")[0] + " = " + rng.choice(values)
        elif choice < 0.6 and line:
            at = rng.randrange(len(line))
            lines[n] = line[:at] + rng.choice([chr(rng.randint(32, 126)), "é", "[", "]", '"']) + line[at + 1:]
        elif choice < 0.8:
            del lines[n]
        else:
            lines.insert(n, rng.choice(["[x]", "a = 1", "[game.sub]", "hold_s = 1", "[[game]]"]))
    return "\n".join(lines) + "\n"


def test_mutated_files_are_refused_or_accepted_never_a_traceback(tmp_path):
    """A whole file (every key written out) with random damage: it loads as check-config and run
    load it, or is refused with each complaint starting with the file; nothing else escapes."""
    whole = writing.to_toml(config_module.load_config(write(tmp_path, {})), comments=False)
    rng = random.Random(7)
    refused = 0
    for number in range(300):
        path = tmp_path / f"mutated{number}.toml"
        path.write_text(mutated(whole, rng), encoding="utf-8")
        try:
            config_module.load_config(path, machine=True)
        except config_module.ConfigError as e:
            refused += 1
            assert e.problems and all(problem.startswith(f"{path}: ") for problem in e.problems), e.problems
    print(f"mutated: 300 files, {refused} refused, {300 - refused} still a working configuration")
    assert 200 < refused < 300  # the damage was real, and not always fatal


# The checker speaks the table's language -----------------------------------------------------

EDGE_VALUES = {  # for each kind, values at and past the edges every range check guards
    "int": ["-1", "0", "1", "31", "9999", "99999999999999999999"], "number": ["-1", "0", "0.001", "7.5", "1e9"],
    "pin": ["-1", "0", "2", "18", "40"], "str": ['""', '"zzz"', '"a/b c"', '"mqtt://"', '"00:00-00:00"'],
    "path": ['"/"', '"' + "p" * 200 + '"'], "machine": ['""', '"/"', '"../machine"'], "usb_id": ['"0:0"', '"FFFFF:1"'], "bool": ["true", "false"],
    "int_list": ["[]", "[-1]", "[0, 0]", "[99]"], "int_lists": ["[]", "[[0]]", "[[0, 1, 2]]", "[[-1, 5]]"],
    "str_list": ["[]", '["t1", "t1"]', '[""]', '["a b"]', '["' + "t" * 65 + '"]'],
    "device": ['"auto"', '"/dev/ttyACM0"', '"/dev/../etc/passwd"', '"COM3"'], "file": ['""', '"/etc/passwd"'],
    "secret": ['""', '"/etc/shadow"', '"config.toml.good"', '"files/../config.toml"'],
    "deck": ['"en"', '"../deck.txt"'], "group": ['""', '"-x"'], "address": ['"0.0.0.0"', '"::"', '"table.local"'],
    "url": ['""', '"ftp://x"', '"http://[x"'], "broker": ['""', '"mqtt://"', '"http://x"'],
}


def problems_in_italian(tmp_path: Path) -> tuple[int, list[str]]:
    """Every bad file this module makes (each key at its edges, the fuzz cases, damaged whole
    files), loaded as check-config loads it: how many problems, and those whose Italian is the
    English word for word (a sentence the catalogue cannot reach)."""
    cases = [{o.key: value} for o in OPTIONS for value in EDGE_VALUES[o.kind]]
    cases += [changes for _, changes, _ in fuzz_cases(random.Random(12))]
    files = [write(tmp_path, changes, name=f"edge{number}.toml") for number, changes in enumerate(cases)]
    whole = writing.to_toml(config_module.load_config(write(tmp_path, {})), comments=False)
    rng = random.Random(7)
    for number in range(100):
        files.append(tmp_path / f"mutated{number}.toml")
        files[-1].write_text(mutated(whole, rng), encoding="utf-8")
    for number, text in enumerate(BAD_TOML):
        files.append(tmp_path / f"toml{number}.toml")
        files[-1].write_text(text, encoding="utf-8")
    count, english = 0, []
    for path in files:
        try:
            config_module.load_config(path, machine=True)
        except config_module.ConfigError as e:
            for phrase, italian in zip(e.phrases, e.said("it"), strict=True):
                count += 1
                if italian == str(phrase):
                    english.append(italian)
    return count, english


@pytest.mark.slow  # some 3 s of CPU by itself: out of ./dev test (issue 40)
def test_every_problem_the_checker_finds_is_said_in_italian(tmp_path):
    """A range check raising a bare ValueError (English from an f-string) instead of a Refusal
    would show the same words on an Italian table: hundreds of bad files find none."""
    count, english = problems_in_italian(tmp_path)
    print(f"checker: {count} problems said in Italian")
    assert count > 300
    assert english == []


@pytest.mark.slow  # some 4 s of CPU by itself: out of ./dev test (issue 40)
def test_a_bare_value_error_in_a_range_check_is_caught(tmp_path, monkeypatch):
    """The check above fails on a builder whose refusal cannot be translated."""
    from pi_table.table import timer

    def bare(self):
        if self.length_s == 5:
            raise ValueError(f"turn timer length is 0 (off) or 10 to 3600 seconds, not {self.length_s}")

    monkeypatch.setattr(timer.TimerSettings, "__post_init__", bare)
    english = problems_in_italian(tmp_path)[1]
    assert english and all(line.endswith("timer.length_s: turn timer length is 0 (off) or 10 to 3600 seconds, not 5")
                           for line in english), english


def test_check_config_speaks_the_language_the_file_sets(tmp_path, capsys):
    path = write(tmp_path, {"game.language": '"it"', "timer.length_s": "5", "game.langage": '"it"',
                            "leds.brightness": '"high"', "paths.journal_dir": f'"{tmp_path / "afile"}"'})
    (tmp_path / "afile").write_text("")
    assert cli.main(["check-config", str(path)]) == EXIT_CONFIG
    said = capsys.readouterr().err.splitlines()
    assert sorted(said) == sorted([
        f"pi-table check-config: {path}: chiave sconosciuta game.langage (forse language?): [game] ha "
        + ", ".join(o.name for o in OPTIONS if o.section == "game"),
        f"pi-table check-config: {path}: leds.brightness: atteso: un numero; trovato: 'high' (una stringa)",
        f"pi-table check-config: {path}: timer.length_s: la durata del timer del turno è 0 (spento) o da 10 a 3600 "
        "secondi, non 5",
        f"pi-table check-config: {path}: paths.journal_dir: atteso: una cartella in cui il tavolo può scrivere le "
        f"partite (creata se manca); trovato: un file: {tmp_path / 'afile'}",
    ])
    english = write(tmp_path, {"timer.length_s": "5"}, name="english.toml")
    assert cli.main(["check-config", str(english)]) == EXIT_CONFIG
    assert capsys.readouterr().err == (f"pi-table check-config: {english}: timer.length_s: turn timer length is 0 "
                                       "(off) or 10 to 3600 seconds, not 5\n")


@pytest.mark.parametrize("value, sealed", [("false", False), ("true", True)])
def test_codex_votes_are_public_unless_the_table_seals_them(tmp_path, value, sealed):
    path = write(tmp_path, {"game.game": '"codex"', "game.sealed_votes": value})
    rules = config_module.load_config(path).rules
    assert rules.game == "codex" and rules.sealed_votes is sealed


def test_a_help_text_lists_every_value_its_key_takes():
    """The help texts are plain literals (msgids to translate), so a nuke mode, setup, language,
    data pin or panel must be added to its help by hand: this says which was forgotten. The games
    are the registry's, named by the key's choices (the reference pages and the staff page's form
    list them with their titles), not its help."""
    from pi_table.drivers.settings import PINS
    from pi_table.engine import CELLS
    from pi_table.engine.rules import NUKE_MODES, SETUPS
    from pi_table.engine.views import LANGUAGES
    from pi_table.ui.mounting import PANELS

    listed = {"game.nuke": NUKE_MODES, "game.setup": SETUPS, "game.language": LANGUAGES,
              "game.dark_cell": [f"0 to {CELLS - 1}"], "leds.pin": [", ".join(map(str, sorted(PINS)))],
              "screen.panel": PANELS}
    helps = {o.key: o.help for o in OPTIONS}
    assert {key: [value for value in values if value not in helps[key]] for key, values in listed.items()} == {
        key: [] for key in listed}


# No setting reads the table's secrets -------------------------------------------------------------


@pytest.mark.parametrize("key", ["fleet.ca", "sim.words", "night.blocked_words"])
def test_no_file_a_setting_reads_may_lie_in_the_journal_folder_where_the_keys_are(tmp_path, key):
    """A password file sent to a broker, or a deck whose bad line the checker quotes, that is a
    game's journal would hand its key to whoever edits the settings (the staff page does). A
    password file is of the secret kind, which names nothing outside ``files/`` (issue 58, 3:
    ``test_setting_kinds.py``), the journal's files and links to them among what it refuses."""
    journal = tmp_path / "journal"
    journal.mkdir()
    game = journal / "g1.jsonl"
    game.write_text('{"v": 3, "key": "RRRRRRRRRBBBBBBBBNNNNNNNA"}\n')
    outside = tmp_path / "elsewhere"  # in the configuration's folder, not the journal's
    outside.mkdir()
    (outside / "link").symlink_to(game)
    broker = {"fleet.broker": '"mqtts://t1@127.0.0.1"'} if key.startswith("fleet.") else {}
    for file in (game, outside / "link"):
        path = write(tmp_path, {key: f'"{file}"', **broker})
        with pytest.raises(config_module.ConfigError) as refused:
            config_module.load_config(path)
        (problem,) = refused.value.problems
        assert problem == (f"{path}: {key}: {key.partition('.')[2]} names {file}, in the journal folder {journal}, "
                           "where the table keeps its secrets (the games' keys, the staff PIN): name a file outside it")
        assert "RRRR" not in problem
    deck = outside / "deck.txt"
    deck.write_text("\n".join(f"word{n}" for n in range(30)))
    good = deck if key in ("sim.words", "night.blocked_words") else outside / "g1.jsonl"
    good.touch()
    assert config_module.load_config(write(tmp_path, {key: f'"{good}"', **broker}))


@pytest.mark.parametrize("key", ["sim.words", "night.blocked_words"])
def test_a_file_named_from_the_configurations_folder_is_guarded_where_it_is_read(tmp_path, key):
    """These two keys take a relative name from the configuration's folder: the guard must look
    there too, not in the folder the checker happens to run in."""
    journal = tmp_path / "journal"
    journal.mkdir()
    (journal / "g1.jsonl").write_text('{"v": 3, "key": "RRRRRRRRRBBBBBBBBNNNNNNNA"}\n')
    path = write(tmp_path, {key: '"journal/g1.jsonl"'})
    with pytest.raises(config_module.ConfigError) as refused:
        config_module.load_config(path)
    (problem,) = refused.value.problems
    assert "where the table keeps its secrets" in problem and "RRRR" not in problem


def test_https_takes_a_certificate_and_its_key_both_readable_in_the_configurations_folder(tmp_path):
    cert, key = tmp_path / "table.crt", tmp_path / "files" / "table.key"  # a key in the secrets folder
    cert.write_text("a certificate")
    key.parent.mkdir()
    refusals = {
        (f'"{cert}"', '""'): "web.tls_cert: tls_cert and tls_key go together: a certificate needs its private key",
        ('"table.crt"', '"files/table.key"'): f"web.tls_key: expected a file the table can read, found {key}, which "
                                              "is not a file",  # a relative name is the configuration folder's
        ('"table.crt"', '"table.key"'): f"web.tls_key: expected a file in {tmp_path / 'files'}, the table's secrets "
                                        "folder, found 'table.key' (a string)",
        ('"/etc/ssl/certs/a.pem"', f'"{key}"'): f"web.tls_cert: expected a file in {tmp_path}, the configuration's "
                                                "folder, or a folder below it, found '/etc/ssl/certs/a.pem' (a string)",
        (f'"{cert}"', f'"{key}"'): f"web.tls_key: expected a file the table can read, found {key}, which is not a file",
    }
    for (given_cert, given_key), problem in refusals.items():
        path = write(tmp_path, {"web.tls_cert": given_cert, "web.tls_key": given_key})
        with pytest.raises(config_module.ConfigError) as refused:
            config_module.load_config(path, machine=True)
        assert f"{path}: {problem}" in refused.value.problems
    key.write_text("a key")
    web = config_module.load_config(write(tmp_path, {"web.tls_cert": f'"{cert}"', "web.tls_key": f'"{key}"'})).web
    assert (web.tls_cert, web.tls_key) == (str(cert), str(key))


# Writing the file (the staff page, tune --write) ------------------------------------------------

HAND_WRITTEN = """\
# our table, set up by Anna
[web]
url = "http://table.local:8024/["  # typo: a bracket left open
port = 8024

[leds]
brightness = 0.3  # the café is dark

[touch]
thresholds = [
    [9, 4],  # hand-tuned, over two lines
    [9, 4],
]
"""


def test_a_change_keeps_every_other_key_and_comment_even_beside_a_bracket_in_a_string(tmp_path):
    """Tried as a new user would (issue 25): the old hand-written editor counted the bracket inside
    the url's string, and writing web.url deleted port and the whole [leds] section (and here the
    thresholds' first line); the shorter file still passed the check."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    writing.changed_text(path, {})  # the file as it is reads back whole
    text = writing.changed_text(path, {"web.url": "http://table.local", "timer.length_s": 90})
    assert text == HAND_WRITTEN.replace('"http://table.local:8024/["', '"http://table.local"') + "\n[timer]\nlength_s = 90\n"


def test_a_written_file_that_would_lose_a_key_is_refused(tmp_path, monkeypatch):
    """The guard behind the editor: whatever tomlkit writes is read back and must hold the old
    keys with the changes and nothing else."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    monkeypatch.setattr(writing.tomlkit, "dumps", lambda document: '[web]\nurl = "http://table.local"\n')
    with pytest.raises(config_module.ConfigError, match="could not be changed without changing other keys: change "
                                                        "web.url by hand"):
        trial.change_proven(path, {"web.url": "http://table.local"}, machine=False)
    assert path.read_text() == HAND_WRITTEN


def test_a_written_file_keeps_its_mode_and_leaves_nothing_beside_it(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    path.chmod(0o640)
    old_umask = os.umask(0o077)  # the unit's UMask: the file keeps its own mode all the same
    try:
        trial.change_proven(path, {"leds.brightness": 0.5}, machine=False)
    finally:
        os.umask(old_umask)
    assert (path.stat().st_mode & 0o777) == 0o640 and [p.name for p in tmp_path.iterdir()] == ["config.toml"]
    assert config_module.load_config(path).leds.brightness == 0.5


def test_a_file_tomlkit_cannot_edit_is_refused_by_hand_not_a_traceback(tmp_path, monkeypatch):
    """tomlkit before 0.13.3 wrote a key added after a section's own sub-table as TOML that does not
    read back ("[leds.extra]" then "[leds]"); whatever it writes that cannot be read is refused."""
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN)
    monkeypatch.setattr(writing.tomlkit, "dumps", lambda document: "[web]\nurl = \n")
    with pytest.raises(config_module.ConfigError, match="change web.url by hand"):
        trial.change_proven(path, {"web.url": "http://table.local"}, machine=False)
    assert path.read_text() == HAND_WRITTEN
